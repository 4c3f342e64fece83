"""Run tags: what a valid tag is, and replacing a run's tags."""

from __future__ import annotations

import re

from django.db import transaction
from rest_framework import serializers

from mase_web.runs.models import Run, RunTag

MAX_TAGS = 12
TAG_PATTERN = re.compile(r"^[\w][\w .:+-]{0,39}$")


class TagsField(serializers.ListField):
    """A list of tags: trimmed, lower-cased, de-duplicated, each 1–40 letters, digits, spaces or ._:+-."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField(max_length=40, trim_whitespace=True))
        kwargs.setdefault("max_length", MAX_TAGS)
        kwargs.setdefault("help_text", f"at most {MAX_TAGS} labels, e.g. baseline, lr-sweep")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        names = super().to_internal_value(data)
        clean: list[str] = []
        for name in names:
            name = " ".join(name.lower().split())
            if not TAG_PATTERN.match(name):
                raise serializers.ValidationError(
                    f"{name!r} is not a tag: use letters, digits, spaces and . _ : + - (at most 40)"
                )
            if name not in clean:
                clean.append(name)
        return clean


@transaction.atomic
def set_tags(run: Run, names: list[str]) -> list[str]:
    """Make `names` the run's tags exactly; returns them sorted."""
    RunTag.objects.filter(run=run).exclude(name__in=names).delete()
    have = set(RunTag.objects.filter(run=run).values_list("name", flat=True))
    RunTag.objects.bulk_create(RunTag(run=run, name=name) for name in names if name not in have)
    return sorted(names)


def query_tag(raw: str) -> str:
    """A tag given in a query string, normalised like stored ones; a 400 when it cannot be a tag."""
    name = " ".join(raw.lower().split())
    if not TAG_PATTERN.match(name):
        raise serializers.ValidationError({"tag": [f"{raw[:50]!r} is not a tag"]})
    return name
