"""Decision records: what the runtime logs for every agent at every step, and where they are kept.

`step_records` builds one step's records, one per agent that acted:

    {"request_id", "task_id", "step", "agent", "observation" (summary), "action", "action_index",
     "source": "model" | "trial" | "fallback", "confidence", "reason": {"alternatives": [{"action", "p"}],
     "rule", "text" | "text_error"}, "messages": {"received": [{"from", "weight"}], "sent": [{"to", "weight"}]}, "latency_ms",
     "reward", "breaker_state", "fault"}

``confidence`` is the team's probability of the action it chose — calibrated when the checkpoint carries a
calibration (per-agent temperatures fitted on the dev split after training, `training.mappo.calibration`),
so that 0.6 means "right about 60 % of the time" — (None when the model was not asked or
failed); ``reason.alternatives`` are the top-k actions with their probabilities; ``reason.rule`` says which
rule answered when the fallback did, and ``reason.proposed`` (``{"action", "confidence"}``) what the model
proposed when it was asked but the fallback answered (a decision below the confidence threshold, a step that
opened the breaker); ``reason.text`` (only when the backbone is a causal LM and
``RuntimeConfig.explain_tokens`` > 0, only on model-answered steps) is the LM's greedy continuation of
"Agent … observed: … It chose: … Because", generated for all agents of a step in one batched call;
``reason.text_error`` replaces it when generation failed (which never fails the request); ``reason.allocation``
(only when the environment's step info carries ``ALLOCATION_INFO``, e.g. the large team) is who bid what for the
step's task and who won it: ``{"task", "kind", "bids": {agent: bid}, "winner"}``; ``messages`` are the learned-communication attention weights
(α_ij: how much agent i listened to agent j this step). ``reward`` is the environment's reward for the
step (None when the task's ground truth is unknown, e.g. a ticket typed in by a user).

Observations go in as short JSON-safe summaries (`summarise_observation`) without the agent's own prompt.
`DecisionLog` is a ready-made, thread-safe ``decision_sink`` (memory + JSONL).
"""

from __future__ import annotations

import json
import math
import sys
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

ALLOCATION_INFO = "allocation"  # the step-info key whose value a step's records carry as reason.allocation


def plain(value: Any) -> Any:
    """JSON-safe copy: arrays/tensors to lists, NaN/inf to None, tuples to lists."""
    if isinstance(value, torch.Tensor | np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    return repr(value)


def situation(observation: Any) -> Any:
    """What an agent saw, without its own prompt: the prompt is part of the policy (recorded with the
    checkpoint's roster), and repeating it in every decision would bloat the log and its search."""
    if isinstance(observation, Mapping) and "prompt" in observation:
        return {k: v for k, v in observation.items() if k != "prompt"}
    return observation


def summarise_observation(observation: Any, chars: int = 200) -> Any:
    """A short, JSON-safe view of an observation: texts cut to ``chars``, big arrays as their shape."""
    if isinstance(observation, str):
        return observation if len(observation) <= chars else observation[: chars - 1] + "…"
    if isinstance(observation, Mapping):
        return {str(k): summarise_observation(v, chars) for k, v in observation.items()}
    if isinstance(observation, torch.Tensor | np.ndarray):
        array = np.asarray(
            observation.detach().cpu() if isinstance(observation, torch.Tensor) else observation
        )
        return plain(array) if array.size <= 32 else {"shape": list(array.shape)}
    return plain(observation)


def observation_text(summary: Any, chars: int) -> str:
    """One line of an observation summary for a prompt: its text and number fields, ``key: value``."""
    if isinstance(summary, Mapping):
        parts = [f"{k}: {v}" for k, v in summary.items() if isinstance(v, str | int | float)]
        text = "; ".join(parts)
    else:
        text = str(summary)
    return text[:chars]


def action_names(env: Any, agents: Sequence[str], n_actions: Sequence[int]) -> dict[str, list[str]]:
    """Action names from the env's ``action_names(agent)`` (a drawn team's), else its module's
    ``ROLE_ACTIONS`` table, else the indices."""
    table = getattr(sys.modules.get(type(env).__module__), "ROLE_ACTIONS", None)
    own = getattr(env, "action_names", None)
    names = {}
    for agent, n in zip(agents, n_actions, strict=True):
        if callable(own):
            given = list(own(agent))
        else:
            given = list(table.get(agent, ())) if isinstance(table, Mapping) else []
        names[agent] = given if len(given) == n else [str(i) for i in range(n)]
    return names


class DecisionLog:
    """A ready-made, thread-safe ``decision_sink``: the last ``maxlen`` records in memory, optionally
    appended to a JSONL file (one record per line) as they arrive."""

    def __init__(self, maxlen: int = 100_000, path: str | Path | None = None):
        self._records: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._lock = threading.Lock()
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, record: Mapping[str, Any]) -> None:
        """Keep one decision record (and write it to the JSONL file, when one is set)."""
        record = dict(record)
        with self._lock:
            self._records.append(record)
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")

    def records(self, request_id: str | None = None, agent: str | None = None) -> list[dict[str, Any]]:
        """Kept records, oldest first, optionally only one request's and/or one agent's."""
        with self._lock:
            items = list(self._records)
        return [
            r
            for r in items
            if (request_id is None or r["request_id"] == request_id)
            and (agent is None or r["agent"] == agent)
        ]

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)


def explain_prompt(record: Mapping[str, Any], chars: int) -> str:
    """The prompt a causal LM continues into a decision's ``reason.text``."""
    return (
        f"Agent {record['agent']} observed: {observation_text(record['observation'], chars)}\n"
        f"It chose: {record['action']}\nBecause"
    )


def decision_reason(
    alternatives: list[dict[str, Any]], rule: str | None, allocation: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A record's ``reason``; with the step's ``allocation`` when the environment reported one."""
    out: dict[str, Any] = {"alternatives": alternatives, "rule": rule}
    if allocation is not None:
        out["allocation"] = plain(allocation)
    return out


def step_records(
    agents: Sequence[str],
    names_of: Mapping[str, Sequence[str]],
    *,
    top_k: int,
    summary_chars: int,
    request_id: str,
    task_id: Any,
    step: int,
    live: Mapping[str, Any],
    chosen: Mapping[str, int],
    probs: torch.Tensor | None,
    alpha: torch.Tensor | None,
    confidences: Mapping[str, float],
    rules: Mapping[str, str],
    route: str,
    model_ms: float,
    rewards: Mapping[str, float] | None,
    state: str,
    fault: tuple[str, str] | None,
    allocation: Mapping[str, Any] | None = None,
    proposed: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """One record per agent that acted (``live``) at one step: its action by name (``names_of``), the
    ``top_k`` alternatives from ``probs`` [N, A], the messages it received and sent from the attention
    ``alpha`` [N, N] (rows and columns in ``agents`` order), and where the decision came from.
    ``proposed``: the model's actions that the rules answered instead (``reason.proposed``: the action and
    its confidence); on a step the model answered, such an agent's decision is the fallback's."""
    index = {a: i for i, a in enumerate(agents)}
    # plain lists once per step: per-element tensor indexing costs microseconds each
    p_rows = probs.tolist() if probs is not None else None
    a_rows = alpha.tolist() if alpha is not None else None
    out = []
    for agent, observation in live.items():
        i, names = index[agent], names_of[agent]
        alternatives = []
        if p_rows is not None:
            row = p_rows[i][: len(names)]
            top = sorted(range(len(row)), key=row.__getitem__, reverse=True)[:top_k]
            alternatives = [{"action": names[j], "p": round(row[j], 4)} for j in top]
        messages: dict[str, list] = {"received": [], "sent": []}
        if a_rows is not None:
            for j, other in enumerate(agents):
                if j != i and other in live:
                    if a_rows[i][j] > 0:
                        messages["received"].append({"from": other, "weight": round(a_rows[i][j], 4)})
                    if a_rows[j][i] > 0:
                        messages["sent"].append({"to": other, "weight": round(a_rows[j][i], 4)})
        action = chosen[agent]
        reason = decision_reason(alternatives, rules.get(agent), allocation)
        source = route
        if proposed and agent in proposed:
            p = proposed[agent]
            reason["proposed"] = {"action": names[p] if 0 <= p < len(names) else str(p),
                                  "confidence": confidences.get(agent)}  # fmt: skip
            source = "fallback" if route == "model" else route  # a failed trial stays logged as the trial
        out.append(
            {
                "request_id": request_id,
                "task_id": task_id,
                "step": step,
                "agent": agent,
                "observation": summarise_observation(situation(observation), summary_chars),
                "action": names[action] if 0 <= action < len(names) else str(action),
                "action_index": action,
                "source": source,
                "confidence": confidences.get(agent),
                "reason": reason,
                "messages": messages,
                "latency_ms": round(model_ms, 3),
                "reward": float(rewards[agent]) if rewards and agent in rewards else None,
                "breaker_state": state,
                "fault": fault[0] if fault else None,
            }
        )
    return out
