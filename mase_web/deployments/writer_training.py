"""A challenger's writer, taught by the deployment's ratings reward model before the challenger is judged
(decision 0029; `training.reply_writer`).

Where annotators rated the deployment's replies and a reward model was trained on their ratings, the
challenger's writer is trained by REINFORCE on the deployment's answered tickets: the reward of a style is
the reward model's score of the ticket's episode with its reply rewritten in that style. The routing actors
are not touched (the writer is a separate decision). A reward model no better than the most common star
teaches nothing; without one, the parent's writer (if any) is carried over, so a promotion never drops the
style the deployment served.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mase_web.deployments.models import Generation
from mase_web.feedback.facade import deployment_ratings_reward, reply_texts

MAX_TICKETS = 2000  # the newest answered tickets the writer trains on


def _answered(deployment) -> list:
    """The newest answered tickets with a written reply (their parts are what a style rewrites)."""
    episodes = deployment.episodes.exclude(task_text="").order_by("-id")[: MAX_TICKETS * 2]
    kept = [e for e in episodes if ((e.result or {}).get("reply") or {}).get("parts")]
    return kept[:MAX_TICKETS]


def _style_rewards(episodes: list, score) -> Any:
    """[tickets, styles]: the reward model's score of each episode with its reply in each style."""
    import torch

    from serving.generation.styles import styled_parts
    from serving.generation.template import join_reply
    from training.reply_writer import STYLES

    rows = []
    for episode in episodes:
        reply = episode.result["reply"]
        parts = [str(p.get("text") or "") for p in reply["parts"]]
        replies = [join_reply(styled_parts(s, parts), str(reply.get("signature") or "")) for s in STYLES]
        rows.append(score(reply_texts(episode, replies)))
    return torch.tensor(rows, dtype=torch.float32)


def teach_writer(generation: Generation) -> dict[str, Any] | None:
    """Train and save the challenger's writer beside its checkpoint; what happened, for its data (None:
    no reward model and no parent writer: its replies stay plain)."""
    import torch

    from agents.spec import load_spec
    from mase_web.deployments.runtimes import backbone_for
    from training.reply_writer import WRITER_FILE, save_writer, train_writer, untrusted_reward_model

    deployment, target = generation.deployment, Path(generation.checkpoint)
    reward = deployment_ratings_reward(deployment.pk)
    inherited = generation.parent is not None and (Path(generation.parent.checkpoint) / WRITER_FILE).is_file()
    carried = {"carried_from_generation": generation.parent.number} if inherited else None
    if reward is None:
        if inherited:
            shutil.copyfile(Path(generation.parent.checkpoint) / WRITER_FILE, target / WRITER_FILE)
        return carried
    m = reward.metrics
    refused = untrusted_reward_model(
        float(m.get("accuracy", 0.0)), float(m.get("baseline_accuracy", 1.0)), int(m.get("n_heldout", 0))
    )
    episodes = _answered(deployment)
    if refused or not episodes:
        return {"reward_model": reward.model_id, "refused": refused or "no answered ticket with a reply yet"}
    team = load_spec(generation.spec, require_environment=True)
    vectors = backbone_for(team).encode([e.task_text for e in episodes]).float()
    tickets = torch.nn.functional.normalize(vectors, dim=-1)  # as the serving runtime embeds a ticket
    table = _style_rewards(episodes, reward.score)
    head, trained = train_writer(tickets, lambda idx, act: table[idx, act])
    save_writer(head, target, {"reward_model": reward.model_id, "tickets": len(episodes)})
    return {"reward_model": reward.model_id, **{k: trained[k] for k in ("reward_first", "reward_last", "chosen")},
            "tickets": len(episodes)}  # fmt: skip
