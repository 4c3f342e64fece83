"""A challenger's writer, taught by the deployment's rated replies before the challenger is judged
(decisions 0029 and 0035; `training.reply_writer`, `training.style_reward`).

Where annotators rated the deployment's replies, a reward model of (ticket, style) is fitted on them — the
ticket's features (the team's backbone vector, its length and tone) crossed with the style the reply was
written in — and the challenger's writer is trained by REINFORCE on the deployment's answered tickets with
that model's score of each style as reward. The routing actors are not touched (the writer is a separate
decision). A reward model that predicts held-out ratings no better than the mean star teaches nothing;
without ratings, the parent's writer (if any) is carried over, so a promotion never drops the style the
deployment served.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mase_web.deployments.models import Generation
from mase_web.feedback.facade import deployment_rated_replies

MAX_TICKETS = 2000  # the newest answered tickets the writer trains on
MIN_RATINGS = 8  # fewer rated replies: no reward model is fitted (the trust rule would refuse it anyway)


def _answered(deployment) -> list[str]:
    """The texts of the newest answered tickets with a written reply (what a style rewrites)."""
    episodes = deployment.episodes.exclude(task_text="").order_by("-id")[: MAX_TICKETS * 2]
    kept = [e.task_text for e in episodes if ((e.result or {}).get("reply") or {}).get("parts")]
    return kept[:MAX_TICKETS]


def teach_writer(generation: Generation) -> dict[str, Any] | None:
    """Train and save the challenger's writer beside its checkpoint; what happened, for its data (None:
    no ratings and no parent writer: its replies stay plain)."""
    import torch

    from agents.spec import load_spec
    from mase_web.deployments.runtimes import backbone_for
    from training.reply_writer import WITH_SURFACE, WRITER_FILE, save_writer, ticket_features, train_writer
    from training.style_reward import train_style_reward, untrusted_style_reward

    deployment, target = generation.deployment, Path(generation.checkpoint)
    rated = deployment_rated_replies(deployment.pk)
    inherited = generation.parent is not None and (Path(generation.parent.checkpoint) / WRITER_FILE).is_file()

    def carried(
        figures: dict,
    ) -> dict[str, Any] | None:  # the parent's writer, so a promotion keeps its style
        if not inherited:
            return figures or None
        shutil.copyfile(Path(generation.parent.checkpoint) / WRITER_FILE, target / WRITER_FILE)
        return {"carried_from_generation": generation.parent.number, **figures}

    if len(rated) < MIN_RATINGS:
        return carried({})
    backbone = backbone_for(load_spec(generation.spec, require_environment=True))

    def features(texts: list[str]) -> torch.Tensor:  # as the serving runtime embeds a ticket, + length, tone
        return ticket_features(backbone.encode(texts).float(), texts)

    model, metrics = train_style_reward(
        features([r.ticket for r in rated]),
        [r.style for r in rated],
        [r.stars for r in rated],
        propensities=[r.propensity for r in rated],  # as served (decision 0039); None for older replies
    )
    figures = {
        "ratings": len(rated),
        "explored": sum(r.explored for r in rated),
        "logged_propensities": sum(r.propensity is not None for r in rated),
        "reward_model": asdict(metrics),
    }
    refused, tickets = untrusted_style_reward(metrics), _answered(deployment)
    if refused or not tickets:
        return carried({**figures, "refused": refused or "no answered ticket with a reply yet"})
    rows = features(tickets)
    table = model.reward(rows)
    head, trained = train_writer(rows, lambda idx, act: table[idx, act], inputs=WITH_SURFACE)
    save_writer(head, target, {"ratings": len(rated), "tickets": len(tickets)})
    return {
        **figures,
        **{k: trained[k] for k in ("reward_first", "reward_last", "chosen")},
        "tickets": len(tickets),
    }
