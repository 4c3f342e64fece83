"""Training a reward model on a queue's ratings (run by the Celery task in tasks.py) and loading one.

Progress goes to the RewardModel row (0.1 once the texts are encoded, then the head's training), so the
manager page can poll it. Weights go to DATA_DIR/feedback/reward_models/<id>.safetensors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict

from django.db.models import Avg
from django.utils import timezone

from mase_web.feedback.models import FeedbackItem, FeedbackQueue, RewardModel
from mase_web.feedback.snapshots import snapshot_text

log = logging.getLogger(__name__)
MAX_TOKENS = 256  # task + answer + decisions do not fit MiniLM's default 64 tokens
ENCODED_SHARE = 0.1  # the share of the progress bar the encoding takes


def rated_texts(queue: FeedbackQueue) -> tuple[list[str], list[float]]:
    """(text, mean rating) of every rated item of the queue, in item order."""
    rows = (
        FeedbackItem.objects.filter(queue=queue, ratings__isnull=False)
        .annotate(mean=Avg("ratings__value"))
        .order_by("id")
    )
    return [snapshot_text(item.snapshot) for item in rows], [float(item.mean) for item in rows]


def _set(model_id: int, **fields) -> None:
    RewardModel.objects.filter(pk=model_id).update(**fields)


def _load_backbone(name: str):
    from agents.backbone import Backbone

    return Backbone.load(name, max_length=MAX_TOKENS)


def train(model_id: int) -> str:
    """Train reward model `model_id` and record the outcome; returns its final state."""
    from training.reward_model import RewardModelError, save_reward_model, train_reward_model

    model = RewardModel.objects.select_related("queue").get(pk=model_id)
    _set(model_id, state=RewardModel.State.RUNNING, progress=0.0, message="encoding rated items")
    try:
        if model.queue.kind != FeedbackQueue.Kind.RATING:
            raise RewardModelError(
                "a reward model learns from 1–5 ratings; this queue holds pairwise judgements"
            )
        texts, ratings = rated_texts(model.queue)
        if len(texts) < 4:
            raise RewardModelError(
                f"a reward model needs at least 4 rated items, this queue has {len(texts)}"
            )
        backbone = _load_backbone(model.backbone)
        embeddings = backbone.encode(texts)
        _set(model_id, progress=ENCODED_SHARE, message=f"training the head on {len(texts)} items")
        head, metrics = train_reward_model(
            embeddings,
            ratings,
            progress=lambda f: _set(model_id, progress=ENCODED_SHARE + (1 - ENCODED_SHARE) * f),
        )
        figures = {**asdict(metrics), "backbone": backbone.name}
        save_reward_model(head, model.file_path, figures)
    except Exception as exc:  # the job fails with a reason; the worker lives on
        log.exception("reward model %s failed", model_id)
        _set(model_id, state=RewardModel.State.FAILED, message=str(exc)[:2000], finished_at=timezone.now())
        return RewardModel.State.FAILED
    _set(
        model_id,
        state=RewardModel.State.SUCCEEDED,
        progress=1.0,
        metrics=figures,
        path=str(model.file_path),
        message=_summary(metrics),
        finished_at=timezone.now(),
    )
    return RewardModel.State.SUCCEEDED


def _summary(metrics) -> str:
    """The job's closing message: the held-out accuracy with its sample size, and a warning when small."""
    from training.reward_model import heldout_warning

    figures = f"held-out accuracy {metrics.accuracy:.0%} on {metrics.n_heldout} items"
    warning = heldout_warning(metrics.n_heldout)
    return f"{figures} — {warning}" if warning else figures


def load_scorer(model: RewardModel, text_of: Callable[[str], str | None]):
    """A `RewardModelFeedback` for a trained reward model (loads its backbone)."""
    from training.reward_model import RewardModelFeedback, load_reward_model

    head, _ = load_reward_model(model.path)
    backbone = _load_backbone(model.backbone)
    return RewardModelFeedback(head, backbone.encode, text_of=text_of)
