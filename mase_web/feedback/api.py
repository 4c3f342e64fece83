"""REST API of human feedback.

Managers (`manage_feedback`) create queues, fill them, watch progress and agreement, export and train
reward models. Annotators (`give_feedback`) read their queues' guidelines and answer only the items
assigned to them (`/api/feedback/my-items/`, `ratings/`, `judgements/`). Other users see nothing.
"""

from __future__ import annotations

import json

from django.db.models import Q
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.fields import empty
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from mase_web.accounts.facade import can, projects_where
from mase_web.api_parsers import INT64_MAX
from mase_web.datasets.facade import version_in_project
from mase_web.deployments.facade import deployment_catalogue, deployment_in_project
from mase_web.feedback import enqueue, intent_labels, label_publishing, stats
from mase_web.feedback.assignment import assign
from mase_web.feedback.export import export_lines
from mase_web.feedback.models import (
    FeedbackItem,
    FeedbackQueue,
    IntentLabel,
    PairwiseJudgement,
    Rating,
    RewardModel,
)
from mase_web.feedback.serializers import (
    EnqueueDatasetSerializer,
    EnqueueDeploymentSerializer,
    EnqueueSerializer,
    IntentLabelSerializer,
    ItemSerializer,
    JudgementSerializer,
    QueueSerializer,
    RatingSerializer,
    RewardModelSerializer,
)
from mase_web.feedback.tasks import dispatch


class QueueProgressSerializer(QueueSerializer):
    """A queue as listed and read: with the caller's progress, and the whole queue's for its managers."""

    my_progress = serializers.DictField(read_only=True, help_text="your assigned and answered items")
    can_manage = serializers.BooleanField(read_only=True)
    progress = serializers.DictField(required=False, help_text="the whole queue's; only for managers")

    class Meta(QueueSerializer.Meta):
        fields = [*QueueSerializer.Meta.fields, "my_progress", "can_manage", "progress"]


class AssignedItemSerializer(ItemSerializer):
    """An item assigned to the caller, with the caller's answer when they gave one."""

    my_rating = RatingSerializer(read_only=True, allow_null=True)
    my_judgement = JudgementSerializer(read_only=True, allow_null=True)
    my_intents = IntentLabelSerializer(read_only=True, allow_null=True)

    class Meta(ItemSerializer.Meta):
        fields = [*ItemSerializer.Meta.fields, "my_rating", "my_judgement", "my_intents"]
        read_only_fields = fields


class FeedbackPages(PageNumberPagination):
    """An annotator's whole queue fits one page (`?page_size=`, at most 500)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


def feedback_projects(user):
    """Projects where `user` annotates or manages feedback."""
    return projects_where(user, "give_feedback") | projects_where(user, "manage_feedback")


def require_manager(user, project_id: int) -> None:
    if not can(user, "manage_feedback", project_id):
        raise PermissionDenied("only product managers and admins of this project manage feedback")


class QueueViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Feedback queues of your projects with their progress (annotators: their own progress)."""

    serializer_class = QueueSerializer
    pagination_class = FeedbackPages
    filterset_fields = ["project", "kind"]
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self):
        return FeedbackQueue.objects.filter(project__in=feedback_projects(self.request.user)).select_related(
            "created_by"
        )

    def _manager_queue(self) -> FeedbackQueue:
        queue = self.get_object()
        require_manager(self.request.user, queue.project_id)
        return queue

    def _with_progress(self, queue: FeedbackQueue, data: dict) -> dict:
        user = self.request.user
        data["my_progress"] = stats.my_progress(queue, user)
        data["can_manage"] = can(user, "manage_feedback", queue.project_id)
        if data["can_manage"]:
            data["progress"] = stats.progress(queue)
        return data

    @extend_schema(responses=QueueProgressSerializer(many=True))
    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        rows = [self._with_progress(q, QueueSerializer(q).data) for q in page]
        return self.get_paginated_response(rows)

    @extend_schema(responses=QueueProgressSerializer)
    def retrieve(self, request, *args, **kwargs):
        queue = self.get_object()
        return Response(self._with_progress(queue, QueueSerializer(queue).data))

    def create(self, request, *args, **kwargs):
        # The role before the body, as for edits: the project alone is judged first (an outsider's
        # project is the same 400 as a missing one), then whether the caller manages its feedback.
        field = self.get_serializer().fields["project"]
        try:
            project = field.run_validation(request.data.get("project", empty))
        except ValidationError as exc:
            raise ValidationError({"project": exc.detail}) from None
        require_manager(request.user, project.pk)
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer):
        serializer.save(created_by=self.request.user)

    def get_object(self) -> FeedbackQueue:
        queue = super().get_object()
        if self.action in ("update", "partial_update"):
            # Before the body is judged: who may not edit the queue learns nothing of what would be valid.
            require_manager(self.request.user, queue.project_id)
        return queue

    def perform_update(self, serializer):
        queue = serializer.save()
        assign(queue)  # a raised overlap reaches more annotators at once

    @extend_schema(request=EnqueueSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def enqueue(self, request, pk=None):
        """Queue items from snapshots: [{kind, episode_key, snapshot, episode_key_b?, snapshot_b?}]."""
        queue = self._manager_queue()
        body = EnqueueSerializer(data=request.data, context={"queue": queue})
        body.is_valid(raise_exception=True)
        saved = enqueue.add_items(queue, enqueue.from_payload(body.validated_data["items"]))
        return Response({"added": len(saved), "items": [i.pk for i in saved]}, status=status.HTTP_201_CREATED)

    @extend_schema(request=EnqueueDeploymentSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"], url_path="enqueue-deployment")
    def enqueue_deployment(self, request, pk=None):
        """Queue a deployment's finished episodes or steps: low confidence and/or answered by the fallback."""
        queue = self._manager_queue()
        body = EnqueueDeploymentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        if queue.kind == FeedbackQueue.Kind.INTENTS:
            raise ValidationError(
                {"deployment": ["an intents queue takes dataset rows: use enqueue-dataset/"]}
            )
        deployment = deployment_in_project(options["deployment"], queue.project_id)
        if deployment is None:
            raise ValidationError({"deployment": ["no such deployment in this queue's project"]})
        rival = _rival_deployment(queue, deployment, options.get("compare_with"))
        picked = enqueue.from_deployment(
            queue,
            deployment,
            options["unit"],
            options.get("max_confidence"),
            options["fallback_only"],
            options["limit"],
            compare_with=rival,
        )
        saved = enqueue.add_items(queue, picked.items)
        return Response(
            {
                "added": len(saved),
                "items": [i.pk for i in saved],
                "skipped_identical": picked.skipped_identical,  # pairs not made: both replies the same text
            },
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(request=EnqueueDatasetSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"], url_path="enqueue-dataset")
    def enqueue_dataset(self, request, pk=None):
        """Queue a dataset version's unlabelled rows (not queued yet) for annotators to choose their intents
        (intents queues): {added, items}."""
        queue = self._manager_queue()
        body = EnqueueDatasetSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        if queue.kind != FeedbackQueue.Kind.INTENTS:
            raise ValidationError(
                {"version": [f"a {queue.kind} queue takes no dataset rows; make an intents queue"]}
            )
        version = version_in_project(options["version"], queue.project_id)
        if version is None:
            raise ValidationError({"version": ["no such dataset version in this queue's project"]})
        catalogue = _labelling_catalogue(version, queue.project_id, options.get("deployment"))
        picked = intent_labels.unlabelled_items(queue, version, catalogue, options["limit"])
        saved = enqueue.add_items(queue, picked)
        return Response({"added": len(saved), "items": [i.pk for i in saved]}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def assign(self, request, pk=None):
        """Top up assignments (annotators who joined since, a raised overlap)."""
        queue = self._manager_queue()
        return Response({"assigned": assign(queue), "progress": stats.progress(queue)})

    @extend_schema(responses=ItemSerializer(many=True))
    @action(detail=True, methods=["get"])
    def items(self, request, pk=None):
        """Every item of the queue (managers)."""
        queue = self._manager_queue()
        page = self.paginate_queryset(queue.items.all())
        return self.get_paginated_response(ItemSerializer(page, many=True).data)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def agreement(self, request, pk=None):
        """Krippendorff's alpha over the queue's items, and the items annotators disagree on, widest first."""
        queue = self._manager_queue()
        rows = stats.disagreements(queue)
        items = {i.pk: i for i in queue.items.filter(pk__in=[r["item"] for r in rows])}
        for row in rows:
            item = items[row["item"]]
            row.update(kind=item.kind, episode_key=item.episode_key, task=item.snapshot.get("task", ""))
        return Response({**stats.agreement(queue), "disagreements": rows})

    @extend_schema(responses={(200, "application/x-ndjson"): str})
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        """Every rating and pairwise judgement of the queue as JSON Lines."""
        queue = self._manager_queue()
        response = StreamingHttpResponse(
            (json.dumps(record) + "\n" for record in export_lines(queue)), content_type="application/x-ndjson"
        )
        response["Content-Disposition"] = f'attachment; filename="feedback-queue-{queue.pk}.jsonl"'
        return response

    @extend_schema(methods=["GET"], responses=RewardModelSerializer(many=True))
    @extend_schema(methods=["POST"], request=None, responses={201: RewardModelSerializer})
    @action(detail=True, methods=["get", "post"], url_path="reward-models", pagination_class=None)
    def reward_models(self, request, pk=None):
        """GET: the queue's reward models, newest first. POST: train a new one (Celery) on its ratings, or on
        its pairwise judgements (a Bradley–Terry head) for a pairwise queue."""
        queue = self._manager_queue()
        if request.method == "GET":
            return Response(RewardModelSerializer(queue.reward_models.all()[:20], many=True).data)
        model = RewardModel.objects.create(queue=queue, created_by=request.user)
        dispatch(model)
        return Response(RewardModelSerializer(model).data, status=status.HTTP_201_CREATED)


class RewardModelViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """One reward model's state, progress and held-out figures (managers)."""

    serializer_class = RewardModelSerializer

    def get_queryset(self):
        return RewardModel.objects.filter(
            queue__project__in=projects_where(self.request.user, "manage_feedback")
        )


def _labelling_catalogue(version, project_id: int, deployment_id: int | None) -> list[dict[str, str]]:
    """The intents annotators choose from: the named deployment's catalogue, else the dataset's own, else
    the catalogue of the deployment whose corrections the dataset holds."""
    if deployment_id is not None:
        deployment = deployment_in_project(deployment_id, project_id)
        if deployment is None:
            raise ValidationError({"deployment": ["no such deployment in this queue's project"]})
        return deployment_catalogue(deployment)["intents"]
    declared = (
        (version.dataset.catalogue or {}).get("intents")
        if isinstance(version.dataset.catalogue, dict)
        else None
    )
    if declared:
        return [{"name": str(i["name"]), "description": str(i.get("description") or "")} for i in declared]
    own = (
        deployment_in_project(version.dataset.deployment_id, project_id)
        if version.dataset.deployment_id
        else None
    )
    if own is not None:
        return deployment_catalogue(own)["intents"]
    raise ValidationError(
        {
            "deployment": [
                "this dataset declares no intent catalogue: name a deployment whose intents to label with"
            ]
        }
    )


def _rival_deployment(queue: FeedbackQueue, deployment, compare_with: int | None):
    """The deployment whose answers become episode B of a pairwise queue's pairs (None: any other)."""
    if compare_with is None:
        return None
    if queue.kind != FeedbackQueue.Kind.PAIRWISE:
        raise ValidationError({"compare_with": ["only pairwise queues compare two deployments"]})
    rival = deployment_in_project(compare_with, queue.project_id)
    if rival is None:
        raise ValidationError({"compare_with": ["no such deployment in this queue's project"]})
    if rival.pk == deployment.pk or rival.checkpoint == deployment.checkpoint:
        raise ValidationError(
            {"compare_with": [
                "the same team (same deployment or checkpoint) answers alike: compare with another checkpoint"
            ]}
        )  # fmt: skip
    return rival


class MyItemsView(GenericAPIView):
    """The items assigned to you, with your answer when you gave one (`?queue=`, `?pending=1`)."""

    serializer_class = ItemSerializer
    pagination_class = FeedbackPages

    @extend_schema(
        parameters=[
            OpenApiParameter("queue", int, description="only this queue's items"),
            OpenApiParameter("pending", bool, description="only items you have not answered"),
            OpenApiParameter("page", int, description="page number"),
            OpenApiParameter("page_size", int, description="items per page (at most 500)"),
        ],
        responses=AssignedItemSerializer(many=True),
    )
    def get(self, request):
        user = request.user
        items = FeedbackItem.objects.filter(
            assignments__annotator=user, queue__project__in=projects_where(user, "give_feedback")
        ).select_related("queue")
        queue_id = request.query_params.get("queue")
        if queue_id:
            # isascii: "²" passes isdigit() but not int(); the bound keeps SQLite from an OverflowError.
            if not (queue_id.isascii() and queue_id.isdigit()) or int(queue_id) > INT64_MAX:
                raise ValidationError({"queue": ["must be a queue id"]})
            items = items.filter(queue_id=int(queue_id))
        answered = (
            Q(ratings__annotator=user) | Q(judgements__annotator=user) | Q(intent_labels__annotator=user)
        )
        if request.query_params.get("pending") in ("1", "true"):
            items = items.exclude(pk__in=FeedbackItem.objects.filter(answered).values("pk"))
        page = self.paginate_queryset(items.order_by("queue_id", "id"))
        return self.get_paginated_response([self._with_answer(item, user) for item in page])

    @staticmethod
    def _with_answer(item: FeedbackItem, user) -> dict:
        data = ItemSerializer(item).data
        rating = Rating.objects.filter(item=item, annotator=user).first()
        judgement = PairwiseJudgement.objects.filter(item=item, annotator=user).first()
        data["my_rating"] = RatingSerializer(rating).data if rating else None
        data["my_judgement"] = JudgementSerializer(judgement).data if judgement else None
        label = (
            IntentLabel.objects.filter(item=item, annotator=user).select_related("item__row_label").first()
        )
        data["my_intents"] = IntentLabelSerializer(label).data if label else None
        return data


class AnswerView(GenericAPIView):
    """POST your answer to an item assigned to you; a second POST for the same item updates it."""

    model: type = Rating

    def post(self, request):
        if not projects_where(request.user, "give_feedback").exists():
            raise PermissionDenied("only annotators give feedback")
        body = self.get_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        item = data.pop("item")
        if not can(request.user, "give_feedback", item.queue.project_id):
            raise PermissionDenied("only annotators of this project give feedback")
        answer, created = self.model.objects.update_or_create(
            item=item, annotator=request.user, defaults=data
        )
        self.answered(item, request.user)
        return Response(
            self.get_serializer(answer).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    def answered(self, item: FeedbackItem, annotator) -> None:
        """What an answer sets off beyond being stored (nothing, for ratings and judgements)."""


def _answer_schema(serializer):
    """The first answer is created (201); a later one for the same item updates it (200)."""
    return extend_schema_view(post=extend_schema(responses={201: serializer, 200: serializer}))


@_answer_schema(RatingSerializer)
class RatingView(AnswerView):
    """Rate an item 1–5 with tags from the queue's list and a comment."""

    serializer_class = RatingSerializer
    model = Rating


@_answer_schema(IntentLabelSerializer)
class IntentLabelView(AnswerView):
    """Choose a dataset row's intents (intents queues); [] says "none of these". Once every annotator of the
    row has answered and they agree, the label lands in the row's dataset (`intent_labels`) with the other
    labels of its session: when this annotator has answered all their items of the queue, the queue's agreed
    labels land as one new version (else the sweep lands them within minutes; decision 0032)."""

    serializer_class = IntentLabelSerializer
    model = IntentLabel

    def answered(self, item: FeedbackItem, annotator) -> None:
        intent_labels.resolve(item)
        if label_publishing.session_over(item.queue, annotator):
            label_publishing.publish_queue(item.queue)
            item.refresh_from_db()  # the answer shows where its label landed, not the pending one cached


@_answer_schema(JudgementSerializer)
class JudgementView(AnswerView):
    """Judge a pair: A, B or tie, with a comment."""

    serializer_class = JudgementSerializer
    model = PairwiseJudgement
