"""Training a reward model on a queue's ratings or pairwise judgements (run by the Celery task in tasks.py)
and loading one. A rating queue trains the star-rating head, a pairwise queue the Bradley–Terry head
(training.reward_model: one pair per judged item, its judgements' majority; tied items are skipped).

Progress goes to the RewardModel row (0.1 once the texts are encoded, then the head's training), so the
manager page can poll it. Weights go to DATA_DIR/feedback/reward_models/<id>.safetensors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict

from django.db.models import Avg
from django.utils import timezone

from mase_web.core.facade import shown_text
from mase_web.feedback.models import FeedbackItem, FeedbackQueue, PairwiseJudgement, RewardModel
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


def judged_pairs(queue: FeedbackQueue) -> tuple[list[str], list[str], list[str]]:
    """(text A, text B, verdict "A" | "B" | "tie") of every judged pair item of the queue, in item order."""
    from training.reward_model import pair_verdicts

    choices: dict[int, list[str]] = {}
    judged = PairwiseJudgement.objects.filter(item__queue=queue).order_by("item_id", "id")
    for item_id, choice in judged.values_list("item_id", "choice"):
        choices.setdefault(item_id, []).append(choice)
    items = FeedbackItem.objects.filter(pk__in=choices, snapshot_b__isnull=False).order_by("id")
    kept = list(items)
    verdicts = pair_verdicts([choices[item.pk] for item in kept])
    return [snapshot_text(i.snapshot) for i in kept], [snapshot_text(i.snapshot_b) for i in kept], verdicts


def _set(model_id: int, **fields) -> None:
    RewardModel.objects.filter(pk=model_id).update(**fields)


def _load_backbone(name: str):
    from agents.backbone import Backbone

    return Backbone.load(name, max_length=MAX_TOKENS)


def train(model_id: int) -> str:
    """Train reward model `model_id` and record the outcome; returns its final state."""
    from training.reward_model import save_reward_model

    model = RewardModel.objects.select_related("queue").get(pk=model_id)
    pairwise = model.queue.kind == FeedbackQueue.Kind.PAIRWISE
    _set(
        model_id,
        state=RewardModel.State.RUNNING,
        progress=0.0,
        message="encoding judged pairs" if pairwise else "encoding rated items",
    )
    try:
        fit = _fit_pairwise if pairwise else _fit_ratings
        head, metrics, backbone_name = fit(model)
        figures = {**asdict(metrics), "backbone": backbone_name}
        save_reward_model(head, model.file_path, figures)
    except Exception as exc:  # the job fails with a reason; the worker lives on
        log.exception("reward model %s failed", model_id)
        message = shown_text(str(exc))[:2000]  # shown to managers: no server path
        _set(model_id, state=RewardModel.State.FAILED, message=message, finished_at=timezone.now())
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


def _progress(model_id: int):
    return lambda f: _set(model_id, progress=ENCODED_SHARE + (1 - ENCODED_SHARE) * f)


def _fit_ratings(model: RewardModel):
    """The star-rating head on the queue's rated items: (head, metrics, backbone name)."""
    from training.reward_model import MIN_ITEMS, RewardModelError, train_reward_model

    texts, ratings = rated_texts(model.queue)
    if len(texts) < MIN_ITEMS:
        raise RewardModelError(
            f"a reward model needs at least {MIN_ITEMS} rated items, this queue has {len(texts)}"
        )
    backbone = _load_backbone(model.backbone)
    embeddings = backbone.encode(texts)
    _set(model.pk, progress=ENCODED_SHARE, message=f"training the head on {len(texts)} items")
    head, metrics = train_reward_model(embeddings, ratings, progress=_progress(model.pk))
    return head, metrics, backbone.name


def _fit_pairwise(model: RewardModel):
    """The Bradley–Terry head on the queue's judged pairs (ties skipped): (head, metrics, backbone name)."""
    from training.reward_model import MIN_ITEMS, RewardModelError, train_pairwise_reward_model

    texts_a, texts_b, verdicts = judged_pairs(model.queue)
    decisive = sum(v != "tie" for v in verdicts)
    if decisive < MIN_ITEMS:
        raise RewardModelError(
            f"a pairwise reward model needs at least {MIN_ITEMS} pairs judged A or B, this queue has "
            f"{decisive} ({len(verdicts) - decisive} tied pairs skipped)"
        )
    backbone = _load_backbone(model.backbone)
    unique = list(dict.fromkeys(texts_a + texts_b))  # an episode in several pairs is encoded once
    encoded = backbone.encode(unique)
    row = {text: i for i, text in enumerate(unique)}
    embeddings_a = encoded[[row[t] for t in texts_a]]
    embeddings_b = encoded[[row[t] for t in texts_b]]
    _set(model.pk, progress=ENCODED_SHARE, message=f"training the head on {decisive} judged pairs")
    head, metrics = train_pairwise_reward_model(
        embeddings_a, embeddings_b, verdicts, progress=_progress(model.pk)
    )
    return head, metrics, backbone.name


def _summary(metrics) -> str:
    """The job's closing message: the held-out accuracy with its sample size, and a warning when small."""
    from training.reward_model import heldout_warning

    if getattr(metrics, "head", "rating") == "pairwise":
        figures = (
            f"held-out pairwise accuracy {metrics.accuracy:.0%} on {metrics.n_heldout} pairs "
            f"(chance 50%; {metrics.n_ties} tied pairs skipped)"
        )
        warning = heldout_warning(metrics.n_heldout, "pair")
    else:
        figures = f"held-out accuracy {metrics.accuracy:.0%} on {metrics.n_heldout} items"
        warning = heldout_warning(metrics.n_heldout)
    return f"{figures} — {warning}" if warning else figures


def load_scorer(model: RewardModel, text_of: Callable[[str], str | None]):
    """A `RewardModelFeedback` for a trained reward model (loads its backbone)."""
    from training.reward_model import RewardModelFeedback, load_reward_model

    head, _ = load_reward_model(model.path)
    backbone = _load_backbone(model.backbone)
    return RewardModelFeedback(head, backbone.encode, text_of=text_of)
