"""One checkpoint format for MAPPO teams: `model.safetensors` (networks, optimiser) and `state.json`
(config, schedule, counters; never pickle), and a spec's team loaded from one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from training.mappo.clone_anchor import anchor_for


class CheckpointError(ValueError):
    """A checkpoint cannot be used to resume; the message says why."""


def _tensors(trainer: Any) -> dict[str, torch.Tensor]:
    out = {f"actor.{k}": v for k, v in trainer.actor.state_dict().items()}
    out.update({f"critic.{k}": v for k, v in trainer.critic.state_dict().items()})
    if trainer.q_critic is not None:
        out.update({f"q_critic.{k}": v for k, v in trainer.q_critic.state_dict().items()})
    if trainer.value_norm is not None:
        out.update({f"value_norm.{k}": v for k, v in trainer.value_norm.state_dict().items()})
    if trainer.q_norm is not None:
        out.update({f"q_norm.{k}": v for k, v in trainer.q_norm.state_dict().items()})
    if getattr(trainer, "clone_anchor", None) is not None:
        out.update({f"clone_anchor.{k}": v for k, v in trainer.clone_anchor.state_dict().items()})
    opt = trainer.optimizer.state_dict()
    for pid, st in opt["state"].items():
        for k, v in st.items():
            out[f"optim.{pid}.{k}"] = v if isinstance(v, torch.Tensor) else torch.tensor(v)
    return {k: v.detach().contiguous().clone() for k, v in out.items()}


def _roster(trainer: Any) -> list[dict] | None:
    """The team the checkpoint was trained as — each agent's id, role, intents and prompt — when its
    environment builds the team from the spec (customer service's `Roster`), else None."""
    env = getattr(trainer, "env", None)
    game = getattr(env, "unwrapped", env)
    roster = getattr(game, "drawn", None) or getattr(game, "roster", None)  # as drawn, not this episode's deal
    return roster.to_list() if hasattr(roster, "to_list") else None


def save(trainer: Any, directory: str | Path, metrics: Mapping[str, Any] | None = None) -> Path:
    """Write `model.safetensors` + `state.json` into `directory`; emits a "checkpoint" event."""
    from safetensors.torch import save_file

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    save_file(_tensors(trainer), str(directory / "model.safetensors"))
    state = {
        "format": "mase.mappo/1",
        "config": asdict(trainer.cfg),
        "agents": trainer.agents,
        "n_actions": trainer.n_actions,
        "obs_dim": trainer.obs_dim,
        "state_dim": trainer.state_dim,
        "update_index": trainer.update_index,
        "episodes_done": trainer.episodes_done,
        "train_seconds": trainer.train_seconds,
        "best_score": trainer.best_score,
        "scheduler": trainer.scheduler.state_dict() if trainer.scheduler is not None else None,
        "curriculum": trainer.curriculum.state_dict() if trainer.curriculum is not None else None,
        "rng": trainer.rng.getstate()[1][:625],
        "torch_seed": int(torch.initial_seed()),
        "metrics": dict(metrics or {}),
        "roster": _roster(trainer),
    }
    if trainer.link is not None:
        from agents.protocol.link import save_link

        state["protocol"] = save_link(trainer.link, directory)  # the codebook the runtime must read with
    (directory / "state.json").write_text(json.dumps(state, default=float))
    trainer.events.emit(
        "checkpoint", step=trainer.update_index, path=str(directory), metrics=dict(metrics or {})
    )
    return directory


def read_checkpoint(directory: str | Path) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """(state.json, the tensors of model.safetensors) of a MAPPO checkpoint; CheckpointError if unusable."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    directory = Path(directory)
    weights, state_path = directory / "model.safetensors", directory / "state.json"
    if not weights.is_file() or not state_path.is_file():
        raise CheckpointError(f"checkpoint {str(directory)!r} needs model.safetensors and state.json")
    try:
        state = json.loads(state_path.read_text())
        tensors = load_file(str(weights))
    except (json.JSONDecodeError, SafetensorError, OSError) as exc:
        raise CheckpointError(f"checkpoint {str(directory)!r} is corrupted: {exc}") from None
    if state.get("format") != "mase.mappo/1":
        raise CheckpointError(f"checkpoint {str(directory)!r} is not a MAPPO checkpoint")
    return state, tensors


def check_fits(
    directory: str | Path, state: Mapping[str, Any], agents: list[str], n_actions: list[int], cfg: Any
) -> None:
    """CheckpointError unless the checkpoint's team has these agents, action counts and network settings."""
    if state["agents"] != agents:
        raise CheckpointError(
            f"checkpoint {str(directory)!r} was trained for agents {state['agents']}, not {agents}"
        )
    if state["n_actions"] != n_actions:
        counts = ", ".join(
            f"{a} {was} → {now}" for a, was, now in zip(agents, state["n_actions"], n_actions, strict=True) if was != now
        )
        raise CheckpointError(
            f"checkpoint {str(directory)!r} was trained with other action spaces ({counts} actions): the "
            "agents' intents or the environment's deal_roles changed since; retrain"
        )
    for key in ("algorithm", "counterfactual", "sharing", "comm", "hidden"):
        if state["config"].get(key) != getattr(cfg, key):
            raise CheckpointError(
                f"checkpoint {str(directory)!r} has {key}={state['config'].get(key)!r}; "
                f"this run has {getattr(cfg, key)!r}"
            )


def load(trainer: Any, directory: str | Path) -> int:
    """Restore networks, optimiser and schedule from `save_checkpoint`; returns the update index."""
    directory = Path(directory)
    state, tensors = read_checkpoint(directory)
    check_fits(directory, state, trainer.agents, trainer.n_actions, trainer.cfg)

    def part(prefix: str) -> dict[str, torch.Tensor]:
        return {k[len(prefix) + 1 :]: v for k, v in tensors.items() if k.startswith(prefix + ".")}

    try:
        trainer.actor.load_state_dict(part("actor"))
        trainer.critic.load_state_dict(part("critic"))
        if trainer.q_critic is not None:
            trainer.q_critic.load_state_dict(part("q_critic"))
        if trainer.value_norm is not None:
            trainer.value_norm.load_state_dict(part("value_norm"))
        if trainer.q_norm is not None:
            trainer.q_norm.load_state_dict(part("q_norm"))
        trainer.clone_anchor = anchor_for(trainer, part("clone_anchor"))  # none saved: the resumed actors
    except RuntimeError as exc:
        raise CheckpointError(
            f"checkpoint {str(directory)!r} does not fit this team: {str(exc).splitlines()[0]}"
        ) from None
    opt = trainer.optimizer.state_dict()
    optim = part("optim")
    new_state: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in optim.items():
        pid, name = key.split(".", 1)
        new_state.setdefault(int(pid), {})[name] = value
    opt["state"] = new_state
    trainer.optimizer.load_state_dict(opt)
    trainer.update_index = int(state["update_index"])
    trainer.episodes_done = int(state["episodes_done"])
    trainer.train_seconds = float(state["train_seconds"])
    trainer.best_score = state["best_score"]
    if trainer.scheduler is not None and state.get("scheduler"):
        trainer.scheduler.load_state_dict(state["scheduler"])
    if trainer.curriculum is not None and state.get("curriculum"):
        trainer.curriculum.load_state_dict(state["curriculum"])
    trainer.rng.setstate((3, tuple(state["rng"]), None))
    if trainer.link is not None:
        from agents.protocol.link import load_link

        try:
            trainer.link = load_link(directory, state, events=trainer.events)
        except ValueError as exc:
            raise CheckpointError(str(exc)) from None
    torch.manual_seed(int(state["torch_seed"]) + trainer.update_index)
    return trainer.update_index
