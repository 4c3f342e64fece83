"""Human reward feedback: queues of episodes and steps to rate, who rates what, and what they said.

An item keeps an immutable JSON snapshot of exactly what the annotators saw (task, final answer, steps
with agent / action / confidence / messages), so later changes to logs or deployments never change the
meaning of a rating. `episode_key` names the episode in the learning core's terms (the key the
`human_feedback` reward term asks about); the foreign keys to deployment episodes and steps are a
convenience for navigation and may be empty (items from training runs or pasted snapshots).
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

MAX_OVERLAP = 10
STARS = (1, 5)


class FeedbackQueue(models.Model):
    class Kind(models.TextChoices):
        RATING = "rating", "rate episodes and steps 1–5"
        PAIRWISE = "pairwise", "compare two episodes"
        INTENTS = "intents", "choose the intents of dataset rows"

    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="feedback_queues")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.RATING)
    guidelines = models.TextField(blank=True, help_text="Shown to annotators above every item.")
    overlap = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_OVERLAP)],
        help_text="How many different annotators see each item.",
    )
    tags = models.JSONField(default=list, blank=True, help_text="The tags annotators may attach.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"queue {self.pk} {self.name}"


class FeedbackItem(models.Model):
    class Kind(models.TextChoices):
        EPISODE = "episode"
        STEP = "step"
        PAIR = "pair"
        ROW = "row"  # a dataset row to label with intents (`intent_labels`)

    queue = models.ForeignKey(FeedbackQueue, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    episode_key = models.CharField(max_length=300, db_index=True)
    snapshot = models.JSONField(help_text="What the annotator rates (episode A of a pair).")
    episode_key_b = models.CharField(max_length=300, blank=True)
    snapshot_b = models.JSONField(null=True, blank=True, help_text="Episode B of a pair.")
    episode = models.ForeignKey(
        "deployments.Episode", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    step = models.ForeignKey(
        "deployments.DecisionStep", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["queue", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.episode_key}"


class Assignment(models.Model):
    item = models.ForeignKey(FeedbackItem, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feedback_assignments"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_assignment_per_annotator")
        ]
        ordering = ["item", "annotator"]

    def __str__(self) -> str:
        return f"item {self.item_id} → user {self.annotator_id}"


class Rating(models.Model):
    item = models.ForeignKey(FeedbackItem, on_delete=models.CASCADE, related_name="ratings")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    value = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(STARS[0]), MaxValueValidator(STARS[1])]
    )
    tags = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "annotator"], name="one_rating_per_annotator")]
        ordering = ["item", "annotator"]

    def __str__(self) -> str:
        return f"item {self.item_id}: {self.value} stars by user {self.annotator_id}"


class PairwiseJudgement(models.Model):
    class Choice(models.TextChoices):
        A = "A"
        B = "B"
        TIE = "tie"

    item = models.ForeignKey(FeedbackItem, on_delete=models.CASCADE, related_name="judgements")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    choice = models.CharField(max_length=8, choices=Choice.choices)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_judgement_per_annotator")
        ]
        ordering = ["item", "annotator"]

    def __str__(self) -> str:
        return f"item {self.item_id}: {self.choice} by user {self.annotator_id}"


class IntentLabel(models.Model):
    """One annotator's intents for a dataset row (an intents queue's item); [] says "none of these"."""

    item = models.ForeignKey(FeedbackItem, on_delete=models.CASCADE, related_name="intent_labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    intents = models.JSONField(default=list, blank=True, help_text="Names from the item's catalogue, sorted.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_intent_label_per_annotator")
        ]
        ordering = ["item", "annotator"]

    def __str__(self) -> str:
        return f"item {self.item_id}: {self.intents} by user {self.annotator_id}"


class RowLabel(models.Model):
    """The label the annotators of a row agreed on (`intent_labels.resolve`), and where it landed."""

    item = models.OneToOneField(FeedbackItem, on_delete=models.CASCADE, related_name="row_label")
    intents = models.JSONField(default=list, blank=True, help_text="[]: out of scope (none of these).")
    annotators = models.JSONField(default=list, help_text="The usernames whose answers made it.")
    landed = models.JSONField(default=dict, blank=True, help_text="{dataset, version, row} it landed as.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"item {self.item_id} labelled {self.intents}"


class RewardModel(models.Model):
    """A reward model trained on one queue's ratings by a Celery task (training.reward_model)."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    queue = models.ForeignKey(FeedbackQueue, on_delete=models.CASCADE, related_name="reward_models")
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    progress = models.FloatField(default=0.0, help_text="0..1 while training.")
    message = models.TextField(blank=True)
    metrics = models.JSONField(
        default=dict, blank=True, help_text="Held-out accuracy, MAE, majority baseline, split sizes."
    )
    backbone = models.CharField(max_length=300, default="default")
    path = models.CharField(max_length=500, blank=True, help_text="The safetensors file of the head.")
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"reward model {self.pk} of queue {self.queue_id} ({self.state})"

    @property
    def file_path(self):
        return settings.DATA_DIR / "feedback" / "reward_models" / f"{self.pk}.safetensors"
