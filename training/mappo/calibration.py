"""Calibrated confidence for a trained team: per-agent temperatures fitted on a dev split after training.

A deployed team's circuit breaker reads each decision's *confidence* — the probability of the action the
agent chose — against a threshold ("0.6: trust it"). A policy trained by cloning and PPO is not
calibrated: its probabilities say how it was regularised, not how often it is right. After training,
`calibrate` plays every ticket of a dev split once with the greedy team and labels each decision right or
wrong (`correct_actions`: the actions that move the draft towards the ticket's true intents), then fits
one temperature per agent, T_i, so that softmax(logits_i / T_i)[chosen] matches how often such decisions
are right (binary log-loss over a log-spaced grid); of the per-agent fit, one shared temperature and none,
the one with the lowest dev-split error is kept. The argmax — so every decision — is unchanged.

The result is stored next to the checkpoint's weights (`CALIBRATION_FILE`, plain JSON): the temperatures,
the expected calibration error (ECE, 15 equal-width bins, top-label) before and after on the dev split,
and every dev ticket's calibrated confidences step by step, so a deploy form can show how often the
breaker would fall back at any threshold without running the model again. The serving runtime applies
the temperatures (`load_calibration`).
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training.events import stage

CALIBRATION_FILE = "calibration.json"
FORMAT = "mase.calibration/1"
BINS = 15
DEV_SPLIT = "validation"  # nothing trains on these tickets: calibration and `best` selection use them
_GRID = np.geomspace(0.05, 20.0, 241)
_MIN_DECISIONS = 30  # an agent with fewer dev decisions shares the team's temperature


def correct_actions(
    names: Sequence[str],
    observation: Mapping[str, Any],
    truth: set[str],
    owned: Sequence[str] | None = None,
    env: Any | None = None,
) -> set[int]:
    """The right actions of one routing-team agent (its action `names`) at `observation`, for a ticket
    whose true intents are `truth`, as its environment says (`env`'s routing interface and catalogue; None:
    the default routing environment's shipped catalogue).

    A specialist is right to answer any true intent it owns that is not in the draft yet, and to pass when
    none is left; a reviewer (its actions include ``approve``) is right to send back a draft holding a
    wrong intent, to approve a complete one, and to wait otherwise. What it owns is `owned` (its roster
    entry's intents) or, without it, the intents its actions can answer.
    """
    from agents.envs.routing import environment_interface, routing

    interface = routing() if env is None else environment_interface(env)
    catalogue = interface.catalogue({}) if env is None else env.unwrapped.catalogue
    return interface.correct_actions(names, observation, truth, owned, catalogue)


def _owned(env: Any, agent: str) -> Sequence[str] | None:
    """The intents ``agent`` owns in ``env``'s team (None for an env without a roster)."""
    roster = getattr(env.unwrapped, "roster", None)
    member = roster.by_id.get(agent) if roster is not None else None
    return None if member is None or member.reviewer else member.intents


def _action_names(env: Any, agent: str, n: int) -> list[str]:
    own = getattr(env.unwrapped, "action_names", None)
    return list(own(agent)) if callable(own) else [str(i) for i in range(n)]


def collect(
    trainer: Any,
    env: Any,
    limit: int | None = None,
    batch: int = 64,
    progress: Callable[[int], None] | None = None,
) -> list[list[list[dict[str, Any]]]]:
    """Every ticket of `env` (in file order, at most `limit`) played once by the greedy team.

    Returns per ticket, per step, one record per acting agent (in team order, as the breaker reads them):
    ``{"agent": index, "logits": [..], "action": chosen, "correct": bool}``. Up to `batch` tickets are
    played side by side (copies of `env`), one actor forward per step for all of them. `progress(k)` hears
    how many tickets are played, after each such group.
    """
    tickets = list(env.unwrapped.tickets)[: limit if limit is not None else None]
    if hasattr(trainer.featurize, "text"):  # embed every ticket text in batched backbone calls first
        trainer.featurize.text([t.text for t in tickets])
    names = {a: _action_names(env, a, n) for a, n in zip(trainer.agents, trainer.n_actions, strict=True)}
    pool = [env] + [copy.deepcopy(env) for _ in range(min(batch, len(tickets)) - 1)]
    out: list[list[list[dict[str, Any]]]] = [[] for _ in tickets]
    for start in range(0, len(tickets), len(pool)):
        live = []
        for slot, index in enumerate(range(start, min(len(tickets), start + len(pool)))):
            observations, _ = pool[slot].reset(seed=index, options={"ticket_index": index})
            live.append((pool[slot], index, observations))
        while live:
            steps = _greedy_step(trainer, [obs for _, _, obs in live])
            following = []
            for (game, index, observations), (actions, logits) in zip(live, steps, strict=True):
                truth, step = set(tickets[index].intents), []
                for i, agent in enumerate(trainer.agents):
                    if agent in actions:
                        right = actions[agent] in correct_actions(
                            names[agent], observations[agent], truth, _owned(game, agent), game
                        )
                        step.append(
                            {"agent": i, "logits": logits[i], "action": actions[agent], "correct": right}
                        )
                out[index].append(step)
                observations, *_ = game.step(actions)
                if game.agents:
                    following.append((game, index, observations))
            live = following
        if progress is not None:
            progress(min(len(tickets), start + len(pool)))
    return out


def _greedy_step(trainer: Any, batch: list[Mapping[str, Any]]) -> list[tuple[dict[str, int], dict]]:
    """One greedy step of several episodes: per episode ({agent: action}, {agent index: valid logits})."""
    n = len(trainer.agents)
    present = torch.tensor([[a in obs for a in trainer.agents] for obs in batch])
    flat = trainer.featurize([obs.get(a) for obs in batch for a in trainer.agents], trainer.obs_dim)
    o = flat.reshape(len(batch), n, -1)
    valid = torch.stack([trainer.valid_actions(obs) for obs in batch])
    heard = None
    if getattr(trainer, "link", None) is not None:  # HCP: each episode's frames cross the link
        heard = torch.stack([trainer.hear(o[k], present[k], obs) for k, obs in enumerate(batch)])
    with torch.no_grad():
        logits, _ = trainer.actor(o, None, 0.0, present, valid, heard)
    out = []
    for k in range(len(batch)):
        actions, rows = {}, {}
        for i, agent in enumerate(trainer.agents):
            if present[k, i]:
                row = logits[k, i, : trainer.n_actions[i]]
                actions[agent], rows[i] = int(row.argmax()), row.tolist()
        out.append((actions, rows))
    return out


def confidences(logits: torch.Tensor, actions: torch.Tensor, temperature: torch.Tensor) -> torch.Tensor:
    """softmax(logits / T)[action] per row ([M, A] logits, [M] actions, T broadcast over [M] or scalar)."""
    t = temperature if temperature.dim() == 0 else temperature.unsqueeze(-1)
    return torch.softmax(logits / t, -1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)


def expected_calibration_error(conf: Sequence[float], correct: Sequence[bool], bins: int = BINS) -> float:
    """Top-label ECE: Σ_b (n_b / n) · |mean confidence_b − accuracy_b| over equal-width bins of (0, 1]."""
    c, y = np.asarray(conf, dtype=float), np.asarray(correct, dtype=float)
    if c.size == 0:
        return 0.0
    which = np.clip(np.ceil(c * bins).astype(int) - 1, 0, bins - 1)
    total = 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            total += m.mean() * abs(c[m].mean() - y[m].mean())
    return float(total)


def decision_table(records: list[dict[str, Any]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    width = max(len(r["logits"]) for r in records)
    logits = torch.full((len(records), width), -1e9)
    for k, r in enumerate(records):
        logits[k, : len(r["logits"])] = torch.tensor(r["logits"])
    actions = torch.tensor([r["action"] for r in records])
    correct = torch.tensor([float(r["correct"]) for r in records])
    return logits, actions, correct


def calibration_error(trainer: Any, env: Any, temperature: torch.Tensor | None) -> float:
    """ECE of the greedy team's decisions on every ticket of `env` under per-agent `temperature` ([N] or
    any shape holding N values; None = the raw probabilities): how a dev-split fit carries to other tickets."""
    records = [r for steps in collect(trainer, env) for step in steps for r in step]
    logits, actions, correct = decision_table(records)
    t = torch.ones(len(trainer.agents)) if temperature is None else temperature.flatten()
    per = t[torch.tensor([r["agent"] for r in records])]
    return expected_calibration_error(confidences(logits, actions, per).tolist(), correct.bool().tolist())


def fit_temperature(logits: torch.Tensor, actions: torch.Tensor, correct: torch.Tensor) -> float:
    """The temperature whose chosen-action probabilities best predict `correct` (binary log-loss, grid)."""
    best, best_loss = 1.0, math.inf
    for t in _GRID:
        p = confidences(logits, actions, torch.tensor(float(t))).clamp(1e-6, 1 - 1e-6)
        loss = float(-(correct * p.log() + (1 - correct) * (1 - p).log()).mean())
        if loss < best_loss:
            best, best_loss = float(t), loss
    return best


def calibrate(
    trainer: Any, env: Any, limit: int | None = None, progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Fit per-agent temperatures on `env`'s tickets (a dev split) and describe the result (`FORMAT`);
    `progress(k)`: k tickets played."""
    tickets = collect(trainer, env, limit, progress=progress)
    records = [r for steps in tickets for step in steps for r in step]
    if not records:
        raise ValueError("calibration needs at least one decision; the dev split has no tickets")
    logits, actions, correct = decision_table(records)
    agent_of = torch.tensor([r["agent"] for r in records])
    shared = fit_temperature(logits, actions, correct)
    temperatures = []
    for i in range(len(trainer.agents)):
        mine = agent_of == i
        enough = int(mine.sum()) >= _MIN_DECISIONS and 0 < float(correct[mine].mean()) < 1
        temperatures.append(fit_temperature(logits[mine], actions[mine], correct[mine]) if enough else shared)
    right = correct.bool().tolist()
    before = confidences(logits, actions, torch.tensor(1.0))
    # the log-loss fit is kept only where it lowers the dev error: per agent, else shared, else none
    candidates = [temperatures, [shared] * len(temperatures), [1.0] * len(temperatures)]
    scored = []
    for option in candidates:
        conf = confidences(logits, actions, torch.tensor(option)[agent_of])
        scored.append((expected_calibration_error(conf.tolist(), right), option, conf))
    _, temperatures, after = min(scored, key=lambda item: item[0])
    sequences, k = [], 0
    for steps in tickets:
        ticket = []
        for step in steps:
            ticket.append([round(float(c), 4) for c in after[k : k + len(step)]])
            k += len(step)
        sequences.append(ticket)
    return {
        "format": FORMAT,
        "agents": list(trainer.agents),
        "temperatures": dict(zip(trainer.agents, temperatures, strict=True)),
        "shared_temperature": shared,
        "decisions": len(records),
        "tickets": len(tickets),
        "accuracy": float(correct.mean()),
        "mean_confidence_before": float(before.mean()),
        "mean_confidence_after": float(after.mean()),
        "ece_before": expected_calibration_error(before.tolist(), right),
        "ece_after": expected_calibration_error(after.tolist(), right),
        "bins": BINS,
        "confidences": sequences,
    }


def save_calibration(checkpoint_dir: str | Path, calibration: Mapping[str, Any], split: str) -> Path:
    """Write `CALIBRATION_FILE` into a checkpoint directory (write, then rename)."""
    path = Path(checkpoint_dir) / CALIBRATION_FILE
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({**calibration, "split": split}, separators=(",", ":")))
    os.replace(tmp, path)
    return path


def load_calibration(checkpoint_dir: str | Path) -> dict[str, Any] | None:
    """A checkpoint's calibration (None when it has none, or an unreadable one: serve uncalibrated)."""
    path = Path(checkpoint_dir) / CALIBRATION_FILE
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == FORMAT else None


def temperature_vector(calibration: Mapping[str, Any] | None, agents: Sequence[str]) -> torch.Tensor | None:
    """The per-agent temperatures [N] in `agents` order (None without a calibration for this team)."""
    if not calibration or list(calibration.get("agents", ())) != list(agents):
        return None
    temps = calibration.get("temperatures") or {}
    return torch.tensor([float(temps.get(a, 1.0)) for a in agents])


def _shipped_tickets(name: str | None) -> str | None:
    """The ticket split environment `name` trains on by default, or None when it has no ticket splits."""
    from agents.envs import env_parameters

    if name is None:
        return None
    return next((p["default"] for p in env_parameters(name) if p["name"] == "tickets"), None)


def dev_params(name: str | None, params: dict[str, Any], in_order: bool = True) -> dict[str, Any] | None:
    """The environment's parameters on the dev split (its ticket split `DEV_SPLIT`; ``in_order``: in file
    order, else drawn at random per seeded reset), or None when the environment has no ticket splits."""
    if _shipped_tickets(name) is None:
        return None
    from agents.envs.routing import routing

    interface = routing(name)
    dev = interface.dev_tickets(params) if interface is not None else DEV_SPLIT
    if dev is None:  # a dataset of one's own without a dev split: nothing to calibrate on
        return None
    return {**params, "tickets": dev, **({"shuffle": False} if in_order else {})}


def selection_params(name: str | None, params: dict[str, Any]) -> dict[str, Any] | None:
    """The parameters validation (the choice of `best`) plays: the dev split, drawn at random (a reseeded
    episode in file order would replay the first ticket), when the run trains on the environment's shipped
    tickets or on a dataset with its own dev split (``NAME.validation``); None (the run's own parameters)
    for any other ticket file or environment."""
    from agents.envs.routing import routing

    shipped = _shipped_tickets(name)
    if shipped is None:
        return None
    interface = routing(name)
    own_dev = interface is not None and interface.has_own_dev_split(params)
    if params.get("tickets", shipped) != shipped and not own_dev:
        return None
    return dev_params(name, params, in_order=False)


def dev_env_factory(team: Any) -> Callable[[], Any] | None:
    """A spec's dev-split environment, or None when its environment has no ticket splits (nothing to
    calibrate on)."""
    from agents.envs import make_env, team_kwargs

    name = team.environment.name
    params = dev_params(name, dict(team.environment.params))
    if params is None:
        return None
    return lambda: make_env(name, params, **team_kwargs(name, team.agents, team.edges))


def calibrate_checkpoints(
    team: Any, checkpoints: Sequence[str | Path], load: Callable[[str | Path], Any], events: Any = None
) -> dict[str, Any] | None:
    """Calibrate each existing checkpoint directory (`load(dir)` → a trainer holding it) on the spec's dev
    split and store the result with it; returns the last calibration (None when nothing to do). With
    `events`, it reports its progress (stage "calibration", in tickets) and each result as a log line."""
    factory = dev_env_factory(team)
    if factory is None:
        return None
    found = [directory for directory in checkpoints if (Path(directory) / "state.json").is_file()]
    if not found:
        return None
    per = len(factory().unwrapped.tickets)
    result = None
    with stage(events, "calibration", "Calibrating confidence", per * len(found), "tickets") as progress:
        for k, directory in enumerate(found):
            result = calibrate(
                load(directory), factory(), progress=lambda n, k=k: progress.advance_to(k * per + n)
            )
            save_calibration(directory, result, DEV_SPLIT)
            _report(events, directory, result)
    return result


def _report(events: Any, directory: str | Path, result: Mapping[str, Any]) -> None:
    """The calibration of one checkpoint as a log line of the run."""
    if events is not None:
        events.emit(
            "log",
            message=(
                f"calibration of {Path(directory).name} on the {DEV_SPLIT} split: "
                f"ECE {result['ece_before']:.3f} -> {result['ece_after']:.3f} "
                f"(temperatures {', '.join(f'{t:.2f}' for t in result['temperatures'].values())})"
            ),
            calibration={k: v for k, v in result.items() if k != "confidences"},
        )
