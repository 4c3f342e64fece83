"""Multi-turn conversations with a deployed conversational team (the interactive support workflow).

Each customer message is one *turn*: the message is read into the team's observation (the backbone's
sentence vectors, `agents.envs.interactive_support.reading`), the trained team — the deployment's own model,
circuit breaker and rule fallback — plays the turn in `LiveSupportEnv` until it needs the customer again (a
question, an answer) or the conversation ends (escalation, patience), and the reply says the decision in
words. The conversation's state lives on its row between turns, so a reload, another process or a restart
carries on where it stopped. A turn is stored as an `Episode` of the conversation (the customer's message,
every decision as a `DecisionStep`, the reply as a `Reply`): the operator's review pages show a
conversation turn by turn, who said what.

Turns of one deployment take turns with its tickets in this process (they share the runtime's breaker) and
run under the deployment's row lock, which also serialises two turns of one conversation.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.envs.interactive_support.live import LiveSupportEnv
from agents.envs.interactive_support.reading import MessageReader
from agents.envs.interactive_support.words import reply_text, speaker
from agents.spec import load_spec
from mase_web.deployments import breaker_store, runtimes
from mase_web.deployments.inference import _playing_turn, step_row
from mase_web.deployments.models import Conversation, DecisionStep, Deployment, Episode, Reply
from serving.runtime import TeamRuntime

LIVE_ENVIRONMENTS: dict[str, type] = {"interactive_support": LiveSupportEnv}
"""Environments whose teams hold conversations, and the live environment a turn is played in."""
ENDED = {
    "resolved": Conversation.Status.RESOLVED,
    "escalated": Conversation.Status.ESCALATED,
    "abandoned": Conversation.Status.ABANDONED,
    "failed": Conversation.Status.FAILED,
}


class ConversationError(ValueError):
    """A turn that cannot be played; ``field`` names what to change (the API's 400)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass(eq=False)
class LiveTeam:
    """A deployment's team as it holds conversations: a runtime over the live environment that shares the
    deployment runtime's model, breaker and fallback, and the reader of customer messages."""

    runtime: TeamRuntime
    reader: MessageReader


_live: dict[tuple[int, str, str], LiveTeam] = {}
_live_lock = threading.Lock()


def environment_of(deployment: Deployment) -> str | None:
    return ((deployment.spec or {}).get("environment") or {}).get("name")


def is_conversational(deployment: Deployment) -> bool:
    return environment_of(deployment) in LIVE_ENVIRONMENTS


def ticket_refusal(deployment: Deployment) -> str | None:
    """Why the deployment's team takes no single ticket (it holds conversations or plays task streams), or None."""
    from mase_web.deployments.task_stream import stream_limit

    if is_conversational(deployment):
        return (
            "this team holds conversations, one customer message a turn: POST the first message to "
            f"/api/deployments/{deployment.pk}/conversations/"
        )
    if stream_limit(deployment.spec or {}) is not None:
        return f"this team plays streams of tasks, not tickets: POST /api/deployments/{deployment.pk}/tasks/"
    return None


def _embedder(team: Any) -> Callable[[list[str]], np.ndarray]:
    backbone, lock = runtimes.backbone_for(team), threading.Lock()  # tokenizers are not thread-safe

    def embed(texts: list[str]) -> np.ndarray:
        with lock, torch.no_grad():
            return torch.nn.functional.normalize(backbone.encode(list(texts)).float(), dim=-1).numpy()

    return embed


def live_team(deployment: Deployment) -> LiveTeam:
    """The deployment's conversational team in this process (ValueError naming the problem otherwise)."""
    name = environment_of(deployment)
    if name not in LIVE_ENVIRONMENTS:
        raise ConversationError(
            "deployment", f"deployment {deployment.pk} serves a {name!r} team, which holds no conversations; "
            "send it tickets instead",
        )  # fmt: skip
    key = (deployment.pk, deployment.checkpoint, deployment.created_at.isoformat())
    main = runtimes.runtime_for(deployment)  # the model, breaker and fallback every turn shares
    with _live_lock:
        team = _live.get(key)
        if team is None or team.runtime.breaker is not main.breaker:  # none yet, or the runtime was rebuilt
            if team is not None:
                team.runtime.close()
            spec = load_spec(deployment.spec, require_environment=True)
            params, live_env = dict(spec.environment.params), LIVE_ENVIRONMENTS[name]
            runtime = TeamRuntime(
                main.model, lambda: live_env(**params), breaker=main.breaker, fallback=main.fallback,
                config=main.config, step_sink=main.step_sink,
            )  # fmt: skip
            team = _live[key] = LiveTeam(runtime, MessageReader(_embedder(spec)))
        return team


def forget(deployment_id: int) -> None:
    """Drop the deployment's live team in this process (with `runtimes.forget`)."""
    with _live_lock:
        for key in [k for k in _live if k[0] == deployment_id]:
            _live.pop(key).runtime.close()


def refuse_if_ended(conversation: Conversation) -> None:
    if conversation.status != Conversation.Status.OPEN:
        raise ConversationError(
            "conversation", f"conversation {conversation.pk} has ended ({conversation.status}); it takes no "
            "more turns: start a new conversation",
        )  # fmt: skip


def play_turn(
    deployment: Deployment,
    conversation_id: int | None,
    text: str,
    *,
    accepted: bool | None = None,
    user: Any = None,
    source: str = "api",
) -> Conversation:
    """Play the customer's next message (``conversation_id`` None: the first, which opens a conversation);
    returns the conversation with the new turn stored. ``accepted``: the customer's word on an answer (else
    read from the text)."""
    team = live_team(deployment)
    reading = team.reader.read(text or "").as_dict()
    if accepted is not None:
        reading["accepted"] = bool(accepted)
    runtime = team.runtime
    with _playing_turn(deployment.pk), breaker_store.locked_deployment(deployment.pk, defer=("spec",)) as row:
        if conversation_id is None:
            conversation = Conversation.objects.create(deployment=row, created_by=_member(user))
        else:
            conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
            refuse_if_ended(conversation)
        if conversation.state.get("awaiting") != "feedback" and not text.strip():
            raise ConversationError("text", "the customer's message is empty; write what they say")
        seen = breaker_store.playing_breaker(row, runtime.breaker)
        request_id = f"conversation-{conversation.pk}-{uuid.uuid4().hex[:12]}"
        options = {"conversation": conversation.state or None, "message": reading, "seed": opening_seed(text)}
        result = runtime.run(options, request_id=request_id, reward_known=False)
        _store_turn(row, conversation, text, result, reading, request_id, user, source)
        breaker_store.save_played(row, runtime.breaker, seen)
    return conversation


def opening_seed(text: str) -> int:
    """The seed of the simulated knowledge base a conversation searches, from its first message's words: the
    same opening finds the same articles on any server and database (a row id would differ between them).
    Later turns keep the seed stored in the conversation's state."""
    words = " ".join(text.lower().split())
    return int.from_bytes(hashlib.sha256(words.encode()).digest()[:4], "big")


def _member(user: Any) -> Any:
    return user if user is not None and user.is_authenticated else None


def _store_turn(
    deployment: Deployment,
    conversation: Conversation,
    text: str,
    result: dict[str, Any],
    reading: dict[str, Any],
    request_id: str,
    user: Any,
    source: str,
) -> None:
    """The turn as an episode (decisions, reply, what the message was read as) and the conversation's new state."""
    live = (result.get("info") or {}).pop("live", None) or {}
    state, event = live.get("state") or conversation.state, live.get("event")
    words, who = reply_text(event), speaker(event)
    turn = conversation.turns + 1
    summary = {k: v for k, v in result.items() if k != "decisions"}
    summary.update(
        conversation=conversation.pk, turn=turn, event=event, reply=words, speaker=who, reading=reading
    )
    episode = Episode.objects.create(
        deployment=deployment, request_id=request_id, task_text=text, source=source, status=result["status"],
        result=summary, breaker_state=result["breaker"], created_by=_member(user), conversation=conversation,
        turn=turn,
    )  # fmt: skip
    DecisionStep.objects.bulk_create([step_row(episode, r) for r in result["decisions"]])
    Reply.objects.create(
        episode=episode, text=words, parts=[{"agent": who, "text": words, "source": "template"}],
        backend="template",
    )  # fmt: skip
    conversation.state, conversation.turns = state, turn
    conversation.status = ENDED.get(str(state.get("outcome")), Conversation.Status.OPEN)
    conversation.save(update_fields=["state", "turns", "status", "updated_at"])
