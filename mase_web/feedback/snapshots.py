"""What an annotator rates, frozen: snapshots of deployment episodes and steps, and the text a reward
model reads from a snapshot.

A snapshot is {"task": str, "answer": str, "steps": [{step, agent, action, source, confidence,
messages}], "meta": {...}}, plus "reply": {text, backend, parts: [{agent, text, source}]} when the team
wrote one (serving.generation), and "intents": [{name, description}] when the answer names intents of its
environment's catalogue (`agents.spec.intent_catalogues`), so the annotator reads what each one means.
Snapshots are built once, when an item is queued, and never change.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from agents.spec import intent_catalogues

MAX_STEPS_IN_TEXT = 12


def deployment_episode_key(episode) -> str:
    """The learning core's key of a deployment episode: deployment/<deployment id>/<request id>."""
    return f"deployment/{episode.deployment_id}/{episode.request_id}"


def step_key(episode_key: str, step) -> str:
    """A step item's key: its episode's key plus #<step>:<agent> (never mistaken for an episode's)."""
    return f"{episode_key}#{step.step}:{step.agent}"


def step_snapshot(step) -> dict[str, Any]:
    return {
        "step": step.step,
        "agent": step.agent,
        "action": step.action,
        "source": step.source,
        "confidence": step.confidence,
        "messages": step.messages,
    }


def final_answer(episode, steps: list) -> str:
    """What the team answered: the runtime's answer when it has one, else the last decision."""
    result = episode.result or {}
    if isinstance(result.get("answer"), str):
        return result["answer"]
    info = result.get("info") or {}
    for key in ("predicted_intents", "answer", "decision"):
        if info.get(key) not in (None, "", []):
            value = info[key]
            return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return f"{steps[-1].agent}: {steps[-1].action}" if steps else ""


@cache
def _catalogues() -> dict[str, dict[str, dict[str, str]]]:
    return {env: {i["name"]: i for i in items} for env, items in intent_catalogues().items()}


def answer_intents(episode, answer: str) -> list[dict[str, str]]:
    """The catalogue entries (name, description) of the intents ``answer`` names, in its order; none when
    the episode's environment has no intent catalogue."""
    environment = (episode.deployment.spec or {}).get("environment") or {}
    catalogue = _spec_catalogue(environment) or _catalogues().get(environment.get("name")) or {}
    return [dict(catalogue[name]) for name in (n.strip() for n in answer.split(",")) if name in catalogue]


def _spec_catalogue(environment: dict) -> dict[str, dict[str, str]]:
    """The catalogue a deployed spec declares itself (``environment.params.intents``; {} for none), with
    each intent's description (a shipped intent named alone keeps the environment's)."""
    from agents.envs.routing import routing

    interface, params = routing(environment.get("name")), environment.get("params")
    if interface is None or not isinstance(params, dict) or not params.get("intents"):
        return {}
    try:
        own = interface.catalogue(params)
    except ValueError:  # a stored spec whose catalogue no longer validates: the environment's then
        return {}
    return {i["name"]: dict(i) for i in own.listing()}


def reply_snapshot(episode) -> dict[str, Any] | None:
    """The reply the customer read (its text, backend, and who wrote which part), or None."""
    reply = (episode.result or {}).get("reply")
    if not isinstance(reply, dict) or not reply.get("text"):
        return None
    parts = [
        {"agent": p.get("agent"), "text": p.get("text"), "source": p.get("source")}
        for p in reply.get("parts") or []
        if isinstance(p, dict)
    ]
    return {"text": reply["text"], "backend": reply.get("backend", ""), "parts": parts}


def episode_snapshot(episode) -> dict[str, Any]:
    steps = list(episode.steps.all())
    reply = reply_snapshot(episode)
    answer = final_answer(episode, steps)
    intents = answer_intents(episode, answer)
    return {
        **({"reply": reply} if reply else {}),
        **({"intents": intents} if intents else {}),
        "task": episode.task_text,
        "answer": answer,
        "steps": [step_snapshot(s) for s in steps],
        "meta": {
            "deployment": episode.deployment_id,
            "run": episode.deployment.run_id,
            "checkpoint": episode.deployment.shown_checkpoint,  # relative to the run, never the server's path
            "request_id": episode.request_id,
            "status": episode.status,
            "reward": episode.reward,
        },
    }


def single_step_snapshot(episode, step) -> dict[str, Any]:
    """A step item: the episode's task and answer for context, and the one decision being rated."""
    snapshot = episode_snapshot(episode)
    snapshot["steps"] = [step_snapshot(step)]
    snapshot["meta"]["step"] = step.step
    return snapshot


def snapshot_text(snapshot: dict[str, Any]) -> str:
    """The text a reward model reads: task and answer first (they matter most), then the decisions."""
    parts = [f"Task: {snapshot.get('task', '')}", f"Answer: {snapshot.get('answer', '')}"]
    reply = snapshot.get("reply") or {}
    if reply.get("text"):  # what the customer read: the text the reward model should judge
        parts.append(f"Reply: {' '.join(str(reply['text']).split())}")
    for step in (snapshot.get("steps") or [])[:MAX_STEPS_IN_TEXT]:
        parts.append(f"{step.get('agent', '')}: {step.get('action', '')}")
    return "\n".join(parts)
