"""A trained team as inference needs it: the observation reader, the actors, the HCP link, the calibration.

`TeamPolicy` is what a runtime serves: no critic, optimiser, replay or training environment. Build it
from a spec's checkpoint (`training.mappo.from_spec.load_policy`) or take it from a live trainer (`TeamPolicy.from_trainer`, which
shares the trainer's networks). `valid_action_mask` and `hear_over_link` are the two per-step pieces the trainer
and the policy read observations with alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from training.mappo.config import MappoConfig
from training.mappo.networks import TeamActor


def action_count(space: Any) -> int:
    """The size of a `Discrete` action space (ValueError for any other kind)."""
    n = getattr(space, "n", None)
    if n is None:
        raise ValueError(f"MAPPO needs Discrete action spaces, got {space!r}")
    return int(n)


def valid_action_mask(
    agents: Sequence[str], max_actions: int, observations: Mapping[str, Any]
) -> torch.Tensor:
    """[N, A_max] bool from each agent's `action_mask` observation field (all valid when absent)."""
    valid = torch.ones(len(agents), max_actions, dtype=torch.bool)
    for i, a in enumerate(agents):
        o = observations.get(a)
        if isinstance(o, Mapping) and "action_mask" in o:
            m = torch.as_tensor(np.asarray(o["action_mask"], dtype=bool))
            valid[i, : m.shape[0]] = m
    return valid


def hear_over_link(
    link: Any,
    actor: TeamActor,
    agents: Sequence[str],
    obs: torch.Tensor,
    present: torch.Tensor,
    batch: Sequence[Mapping[str, Any]],
) -> torch.Tensor:
    """Observations [B, N, D] of B steps as the other agents receive them over the HCP `link`: each
    present agent that may be heard sends its observation as one frame per step batch."""
    from agents.protocol.link import raw_message_bytes

    send = (present & actor.allowed.any(0)).numpy()
    raw = np.array([[raw_message_bytes(o.get(a)) for a in agents] for o in batch])
    return torch.as_tensor(link.transmit(obs.numpy(), send, raw))


def hear_step(
    link: Any,
    actor: TeamActor,
    agents: Sequence[str],
    o: torch.Tensor,
    present: torch.Tensor,
    observations: Mapping[str, Any],
) -> torch.Tensor | None:
    """`hear_over_link` for one step's observations [N, D] (None when there is no link)."""
    if link is None:
        return None
    return hear_over_link(link, actor, agents, o.unsqueeze(0), present.unsqueeze(0), [observations])[0]


@dataclass
class TeamPolicy:
    """The decentralised actors of a trained team with what they read through.

    ``featurize(observations, obs_dim)`` turns observations into vectors; ``actor`` is the `TeamActor`;
    ``link`` the HCP link whose codebook the messages cross (None: messages go uncompressed);
    ``temperature`` the per-agent calibration temperatures [N] fitted after training (None: raw
    probabilities). ``cfg`` is the configuration the team was trained with.
    """

    agents: list[str]
    n_actions: list[int]
    obs_dim: int
    cfg: MappoConfig
    featurize: Any
    actor: TeamActor
    link: Any = None
    temperature: torch.Tensor | None = None

    @classmethod
    def from_trainer(cls, trainer: Any, temperature: torch.Tensor | None = None) -> TeamPolicy:
        """The policy of a `MappoTrainer` (the same networks and reader, not copies)."""
        return cls(
            list(trainer.agents), list(trainer.n_actions), int(trainer.obs_dim), trainer.cfg,
            trainer.featurize, trainer.actor, getattr(trainer, "link", None), temperature,
        )  # fmt: skip

    @property
    def backbone(self) -> Any:
        """The backbone the team reads text through (its featurizer's), or None."""
        return getattr(self.featurize, "backbone", None)

    def policy(self, greedy: bool = True) -> Callable[[Mapping[str, Any]], dict[str, int]]:
        """The team as a plain function: {agent: observation} -> {agent: action} (raw logits: greedy, or
        sampled from the uncalibrated policy)."""

        def act(observations: Mapping[str, Any]) -> dict[str, int]:
            present = torch.tensor([a in observations for a in self.agents])
            o = self.featurize([observations.get(a) for a in self.agents], self.obs_dim)
            with torch.no_grad():
                logits, _ = self.actor(
                    o.unsqueeze(0),
                    None,
                    0.0,
                    present.unsqueeze(0),
                    self.valid_actions(observations).unsqueeze(0),
                )
            chosen = (
                logits[0].argmax(-1) if greedy else torch.distributions.Categorical(logits=logits[0]).sample()
            )
            return {a: int(chosen[i]) for i, a in enumerate(self.agents) if a in observations}

        return act

    def valid_actions(self, observations: Mapping[str, Any]) -> torch.Tensor:
        """[N, A_max] bool: the actions each agent may take at this step."""
        return valid_action_mask(self.agents, self.actor.max_actions, observations)

    def hear(
        self, o: torch.Tensor, present: torch.Tensor, observations: Mapping[str, Any]
    ) -> torch.Tensor | None:
        """One step's observations [N, D] as the others receive them over the link (None without one)."""
        return hear_step(self.link, self.actor, self.agents, o, present, observations)
