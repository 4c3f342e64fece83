"""Request and response shapes of the feedback API; every check answers with field messages."""

from __future__ import annotations

from rest_framework import serializers

from mase_web.accounts.facade import ProjectField, ScopedIdField
from mase_web.api_parsers import INT64_MAX
from mase_web.feedback.enqueue import twin_reason
from mase_web.feedback.intent_labels import catalogue_names
from mase_web.feedback.models import (
    MAX_OVERLAP,
    FeedbackItem,
    FeedbackQueue,
    IntentLabel,
    PairwiseJudgement,
    Rating,
    RewardModel,
)
from training.reward_model import MIN_RELIABLE_HELDOUT, heldout_warning

MAX_TAGS = 30
MAX_GUIDELINES = 20_000  # shown above every item; a few pages of text
MAX_STEPS = 200
MAX_ITEMS_PER_REQUEST = 500


class QueueSerializer(serializers.ModelSerializer):
    project = ProjectField()
    overlap = serializers.IntegerField(
        min_value=1,
        max_value=MAX_OVERLAP,
        default=1,
        error_messages={
            "min_value": "every item needs at least 1 annotator",
            "max_value": f"at most {MAX_OVERLAP} annotators per item",
        },
    )
    tags = serializers.ListField(
        child=serializers.CharField(max_length=40), max_length=MAX_TAGS, default=list
    )
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = FeedbackQueue
        fields = [
            "id",
            "project",
            "name",
            "kind",
            "guidelines",
            "overlap",
            "tags",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["id", "created_by", "created_at"]
        extra_kwargs = {"guidelines": {"max_length": MAX_GUIDELINES}}

    def validate_tags(self, tags: list[str]) -> list[str]:
        cleaned = [t.strip() for t in tags]
        if any(not t for t in cleaned):
            raise serializers.ValidationError("a tag cannot be empty")
        if len(set(cleaned)) != len(cleaned):
            raise serializers.ValidationError("tags must be unique")
        return cleaned

    def validate(self, data):
        if self.instance is not None and "kind" in data and data["kind"] != self.instance.kind:
            raise serializers.ValidationError({"kind": ["the kind of a queue cannot change"]})
        if self.instance is not None and "project" in data and data["project"].pk != self.instance.project_id:
            raise serializers.ValidationError({"project": ["a queue cannot move to another project"]})
        return data


class StepSnapshotSerializer(serializers.Serializer):
    step = serializers.IntegerField(min_value=0, required=False)
    agent = serializers.CharField(max_length=100)
    action = serializers.CharField(max_length=500, allow_blank=True)
    source = serializers.CharField(max_length=32, required=False, allow_blank=True)
    confidence = serializers.FloatField(min_value=0.0, max_value=1.0, allow_null=True, required=False)
    messages = serializers.JSONField(required=False)


class ReplySnapshotSerializer(serializers.Serializer):
    """The reply the customer read (`snapshots.reply_snapshot`): kept so that a pair of two equal replies is
    refused and the annotator reads the reply."""

    text = serializers.CharField(max_length=20_000)
    backend = serializers.CharField(max_length=64, required=False, allow_blank=True, default="")
    parts = serializers.ListField(
        child=serializers.DictField(), required=False, default=list, max_length=MAX_STEPS
    )


class SnapshotSerializer(serializers.Serializer):
    task = serializers.CharField(max_length=20_000)
    answer = serializers.CharField(max_length=20_000, allow_blank=True, default="")
    steps = StepSnapshotSerializer(many=True, default=list, max_length=MAX_STEPS)
    reply = ReplySnapshotSerializer(required=False)
    intents = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField(max_length=2000)),
        required=False,
        max_length=MAX_STEPS,
        help_text="what the answer's intents mean: [{name, description}]",
    )
    meta = serializers.DictField(required=False, default=dict)


class EnqueueItemSerializer(serializers.Serializer):
    """One item: an episode or step (`episode_key`, `snapshot`), or a pair (plus `episode_key_b`, `snapshot_b`)."""

    kind = serializers.ChoiceField(choices=FeedbackItem.Kind.choices, default=FeedbackItem.Kind.EPISODE)
    episode_key = serializers.CharField(max_length=300)
    snapshot = SnapshotSerializer()
    episode_key_b = serializers.CharField(max_length=300, required=False)
    snapshot_b = SnapshotSerializer(required=False)

    def validate(self, data):
        pair = data["kind"] == FeedbackItem.Kind.PAIR
        if pair and ("snapshot_b" not in data or "episode_key_b" not in data):
            raise serializers.ValidationError({"snapshot_b": ["a pair needs episode_key_b and snapshot_b"]})
        if not pair and ("snapshot_b" in data or "episode_key_b" in data):
            raise serializers.ValidationError({"snapshot_b": ["only a pair has a second episode"]})
        if pair:
            twin = twin_reason(
                data["episode_key"], data["snapshot"], data["episode_key_b"], data["snapshot_b"]
            )
            if twin is not None:
                raise serializers.ValidationError({twin[0]: [twin[1]]})
        return data


class EnqueueSerializer(serializers.Serializer):
    items = EnqueueItemSerializer(many=True, allow_empty=False, max_length=MAX_ITEMS_PER_REQUEST)

    def validate_items(self, items):
        queue: FeedbackQueue = self.context["queue"]
        if queue.kind == FeedbackQueue.Kind.INTENTS:
            raise serializers.ValidationError("an intents queue takes dataset rows: use enqueue-dataset/")
        expected = FeedbackItem.Kind.PAIR if queue.kind == FeedbackQueue.Kind.PAIRWISE else None
        for item in items:
            if (item["kind"] == FeedbackItem.Kind.PAIR) != (expected is not None):
                wanted = "pairs" if expected else "episodes or steps"
                raise serializers.ValidationError(f"this {queue.kind} queue takes {wanted}")
        return items


class EnqueueDeploymentSerializer(serializers.Serializer):
    """Deployment episodes (or their steps) to queue, filtered by confidence and who answered."""

    deployment = serializers.IntegerField(min_value=1)
    unit = serializers.ChoiceField(choices=["episode", "step"], default="episode")
    max_confidence = serializers.FloatField(min_value=0.0, max_value=1.0, required=False, allow_null=True)
    fallback_only = serializers.BooleanField(default=False)
    limit = serializers.IntegerField(min_value=1, max_value=MAX_ITEMS_PER_REQUEST, default=50)
    compare_with = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="pairwise queues: the deployment whose answers are episode B (default: any other of the project)",
    )


class ItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = FeedbackItem
        fields = [
            "id",
            "queue",
            "kind",
            "episode_key",
            "snapshot",
            "episode_key_b",
            "snapshot_b",
            "created_at",
        ]
        read_only_fields = fields


def _assigned_items(items, user):
    return items.filter(assignments__annotator=user).distinct()


class AssignedItemField(ScopedIdField):
    """An item id, found only among the items assigned to the caller: an item of another queue or
    project answers exactly as one that does not exist."""

    default_error_messages = {
        "does_not_exist": "no item {pk_value} is assigned to you",
        "incorrect_type": "an item is named by its id (a whole number)",
    }

    def __init__(self, **kwargs):
        super().__init__(FeedbackItem.objects.all(), _assigned_items, **kwargs)


class RatingSerializer(serializers.ModelSerializer):
    item = AssignedItemField()
    value = serializers.IntegerField(
        min_value=1,
        max_value=5,
        error_messages={"min_value": "a rating is 1 to 5 stars", "max_value": "a rating is 1 to 5 stars"},
    )
    tags = serializers.ListField(
        child=serializers.CharField(max_length=40), default=list, max_length=MAX_TAGS
    )
    comment = serializers.CharField(max_length=5000, allow_blank=True, default="")

    class Meta:
        model = Rating
        fields = ["id", "item", "value", "tags", "comment", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []  # one rating per annotator: a second POST updates the first (see the view)

    def validate(self, data):
        item: FeedbackItem = data["item"]
        if item.queue.kind != FeedbackQueue.Kind.RATING:
            raise serializers.ValidationError(
                {"item": [f"this item is in a {item.queue.kind} queue, not rated"]}
            )
        unknown = sorted(set(data.get("tags", [])) - set(item.queue.tags))
        if unknown:
            raise serializers.ValidationError(
                {"tags": [f"unknown tag(s) {unknown}; this queue's tags are {item.queue.tags}"]}
            )
        return data


class JudgementSerializer(serializers.ModelSerializer):
    item = AssignedItemField()
    comment = serializers.CharField(max_length=5000, allow_blank=True, default="")

    class Meta:
        model = PairwiseJudgement
        fields = ["id", "item", "choice", "comment", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []

    def validate(self, data):
        if data["item"].queue.kind != FeedbackQueue.Kind.PAIRWISE:
            raise serializers.ValidationError({"item": ["this item is rated 1–5, not compared"]})
        return data


class IntentLabelSerializer(serializers.ModelSerializer):
    """Your intents for a dataset row of an intents queue: names from the item's catalogue; [] says "none of
    these" (the ticket asks for nothing the catalogue knows)."""

    item = AssignedItemField()
    intents = serializers.ListField(child=serializers.CharField(max_length=100), max_length=64)
    landed = serializers.SerializerMethodField(
        help_text="where the row's agreed label landed, once it has ({pending: true} until its session ends)"
    )

    class Meta:
        model = IntentLabel
        fields = ["id", "item", "intents", "landed", "created_at", "updated_at"]
        read_only_fields = ["id", "landed", "created_at", "updated_at"]
        validators = []

    def get_landed(self, label: IntentLabel) -> dict | None:
        row_label = getattr(label.item, "row_label", None)
        return row_label.landed if row_label is not None else None

    def validate(self, data):
        item: FeedbackItem = data["item"]
        if item.queue.kind != FeedbackQueue.Kind.INTENTS:
            raise serializers.ValidationError(
                {"item": [f"this item is in a {item.queue.kind} queue, not labelled"]}
            )
        known = catalogue_names(item)
        unknown = [name for name in data["intents"] if name not in known]
        if unknown:
            raise serializers.ValidationError(
                {
                    "intents": [
                        f"not in this row's catalogue: {', '.join(unknown)} (its intents: {', '.join(known)})"
                    ]
                }
            )
        if len(set(data["intents"])) < len(data["intents"]):
            raise serializers.ValidationError({"intents": ["names an intent twice"]})
        data["intents"] = sorted(data["intents"])
        return data


class EnqueueDatasetSerializer(serializers.Serializer):
    """Unlabelled rows of a dataset version to label in an intents queue."""

    version = serializers.IntegerField(min_value=1, max_value=INT64_MAX, help_text="a dataset version id")
    limit = serializers.IntegerField(min_value=1, max_value=MAX_ITEMS_PER_REQUEST, default=50)
    deployment = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        help_text="whose intent catalogue to label with, when the dataset declares none",
    )


class RewardModelSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    warning = serializers.SerializerMethodField(
        help_text=f"set when fewer than {MIN_RELIABLE_HELDOUT} items were held out: the accuracy is a rough guess"
    )

    def get_warning(self, model: RewardModel) -> str | None:
        metrics = model.metrics or {}
        n_heldout = metrics.get("n_heldout")
        unit = "pair" if metrics.get("head") == "pairwise" else "item"
        return None if n_heldout is None else heldout_warning(int(n_heldout), unit)

    class Meta:
        model = RewardModel
        fields = [
            "id", "queue", "state", "progress", "message", "metrics", "warning", "backbone", "created_by",
            "created_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields
