"""A project's own data: datasets, their immutable versions and the rows of each version.

A dataset is a named collection in a project, with an optional intent catalogue. Every change (an upload,
rows added by a correction or an annotator) makes a new `DatasetVersion`, hashed (sha256 of the normalised
rows it holds, `rows.content_hash`). A row is written once, by the version that adds it, and held by the
later versions until one retires it (``retired_in``: relabelled, or replaced by a new file), so a version
stores only what changed (`versions.held_rows` reads a version's rows). Each row's train/dev/test split is
drawn when its version is made and stored (`splits.assign`), so a test slice never moves: a row identical to
one of the parent version keeps the parent's split.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Split(models.TextChoices):
    TRAIN = "train"
    DEV = "dev"
    TEST = "test"


class Provenance(models.TextChoices):
    UPLOADED = "uploaded", "uploaded"
    GENERATED = "generated", "generated"
    CORRECTED = "corrected", "corrected in review"
    ANNOTATED = "annotated", "labelled by an annotator"


class Dataset(models.Model):
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="datasets")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    catalogue = models.JSONField(
        null=True,
        blank=True,
        help_text='The intents rows may carry: {"intents": [{"name", "description", "keywords"?}]}; '
        "null: any intent.",
    )
    deployment = models.OneToOneField(
        "deployments.Deployment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The deployment whose corrections land here (its corrections dataset).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="dataset_name_per_project")]

    def __str__(self) -> str:
        return f"dataset {self.pk} {self.name}"

    def intent_names(self) -> list[str] | None:
        """The catalogue's intent names, or None when the dataset declares none (any intent is accepted)."""
        intents = (self.catalogue or {}).get("intents") if isinstance(self.catalogue, dict) else None
        if not isinstance(intents, list):
            return None
        return [str(i["name"]) for i in intents if isinstance(i, dict) and i.get("name")]


class ImmutableError(RuntimeError):
    """A version or a row was saved again: versions are written once."""


class DatasetVersion(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1, 2, ... within the dataset.")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    content_hash = models.CharField(max_length=64, help_text="sha256 of the normalised rows, in order.")
    row_count = models.PositiveIntegerField()
    split_seed = models.BigIntegerField(default=0)
    note = models.CharField(max_length=300, blank=True, help_text="What made this version.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="one_version_number_per_dataset")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name} v{self.number}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ImmutableError("a dataset version is immutable; make a new one")
        super().save(*args, **kwargs)


class DatasetRow(models.Model):
    # the version that added the row (later versions hold it too until one retires it)
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="rows")
    index = models.PositiveIntegerField(help_text="Position in the version, from 0.")
    line = models.PositiveIntegerField(null=True, blank=True, help_text="Line in the uploaded file.")
    text = models.TextField()
    intents = models.JSONField(default=list, blank=True, help_text="Sorted names; [] = unlabelled.")
    # "|a|b|" for intents [a, b], "" when unlabelled: a text column that filters by intent on every database.
    intent_key = models.TextField(blank=True, default="")
    owner = models.CharField(max_length=100, blank=True, help_text="The agent that should own it.")
    reference_reply = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    split = models.CharField(max_length=8, choices=Split.choices)
    provenance = models.CharField(max_length=16, choices=Provenance.choices)
    source_ref = models.CharField(max_length=200, blank=True, help_text="e.g. the decision or episode id.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    row_hash = models.CharField(max_length=64, help_text="sha256 of the normalised row.")
    retired_in = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The number of the first version of the dataset that no longer holds the row (null: the "
        "newest holds it). Set once; the row's content never changes.",
    )

    class Meta:
        ordering = ["version", "index"]
        constraints = [models.UniqueConstraint(fields=["version", "index"], name="one_row_per_index")]
        indexes = [models.Index(fields=["version", "split"], name="dataset_row_split")]

    def __str__(self) -> str:
        return f"row {self.index} of version {self.version_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ImmutableError("a dataset row is immutable; make a new version")
        super().save(*args, **kwargs)
