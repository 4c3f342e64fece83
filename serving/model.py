"""The trained team a runtime serves: found in a run directory, loaded as a policy, run as a pure function.

`resolve_checkpoint` finds the checkpoint a run serves; `TeamModel` wraps the team's inference policy
(`training.mappo.policy.TeamPolicy`: observation reader, actors, HCP link, calibration temperatures —
no critic, optimiser or training environment) and answers one joint observation, or several requests'
steps at once, with action probabilities and attention weights.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from training.mappo.policy import TeamPolicy, hear_over_link


class RuntimeInputError(ValueError):
    """Bad input to the runtime (unknown ticket, malformed task); the message says what to change."""


def resolve_checkpoint(path: str | Path) -> Path:
    """A checkpoint directory from a run's output directory (``best``, else ``last``) or the directory itself."""
    path = Path(path)
    for candidate in (path / "checkpoints" / "mappo" / "best", path / "checkpoints" / "mappo" / "last", path):
        if (candidate / "state.json").is_file():
            return candidate
    raise RuntimeInputError(
        f"no checkpoint in {str(path)!r}: expected state.json there or under checkpoints/mappo/"
    )


class TeamModel:
    """The trained team as a pure function of one joint observation (read-only; thread-safe).

    Wraps a `TeamPolicy` (or a `MappoTrainer`, whose policy it takes): features (cached text embeddings
    through the frozen backbone), then the decentralised actors with learned communication. Returns
    action probabilities — divided by the policy's calibration temperatures when it has them, so that a
    confidence of 0.6 means "right about 60 % of the time" — and attention.
    """

    def __init__(self, policy: TeamPolicy | Any, temperature: torch.Tensor | None = None):
        self.policy = policy if isinstance(policy, TeamPolicy) else TeamPolicy.from_trainer(policy)
        self.agents: list[str] = list(self.policy.agents)
        self.n_actions: list[int] = list(self.policy.n_actions)
        # per-agent temperatures fitted after training (training.mappo.calibration), the policy's unless
        # given; None = the raw policy probabilities
        t = temperature if temperature is not None else self.policy.temperature
        self.temperature = None if t is None else t.float().reshape(1, -1, 1)
        self._feature_lock = threading.Lock()  # tokenizers and the embedding caches are not thread-safe

    def forward(self, observations: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(probs [N, A_max] over valid actions, attention α [N, N] or None) for one step."""
        return self.forward_many([observations])[0]

    def forward_many(
        self, batch: Sequence[Mapping[str, Any]]
    ) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """`forward` for the steps of several requests at once: one backbone call, one actor call."""
        p, n = self.policy, len(self.agents)
        present = torch.tensor([[a in obs for a in self.agents] for obs in batch])
        with self._feature_lock:
            flat = p.featurize([obs.get(a) for obs in batch for a in self.agents], p.obs_dim)
        valid = torch.stack([p.valid_actions(obs) for obs in batch])
        obs = flat.reshape(len(batch), n, -1)
        # under HCP each agent's observation reaches the others as one compressed frame per step batch,
        # decoded with the codebook saved in the checkpoint
        heard = None if p.link is None else hear_over_link(p.link, p.actor, self.agents, obs, present, batch)
        with torch.no_grad():
            logits, alpha = p.actor(obs, None, 0.0, present, valid, heard)
            probs = torch.softmax(logits if self.temperature is None else logits / self.temperature, -1)
        return [(probs[i], alpha[i] if alpha is not None else None) for i in range(len(batch))]

    @property
    def backbone(self) -> Any:
        """The backbone the team reads text through (its featurizer's), or None."""
        return self.policy.backbone

    def embed(self, texts: Sequence[str]) -> torch.Tensor | None:
        """Unit-length backbone vectors of ``texts`` (under the feature lock), or None without a backbone."""
        encode = getattr(self.backbone, "encode", None)
        if not callable(encode):
            return None
        with self._feature_lock, torch.no_grad():
            return torch.nn.functional.normalize(encode(list(texts)).float(), dim=-1)

    @property
    def can_explain(self) -> bool:
        """Whether the team's backbone is a causal LM that can generate text."""
        backbone = self.backbone
        return getattr(backbone, "is_causal", False) is True and callable(getattr(backbone, "generate", None))

    def explain(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """The backbone's greedy continuations of `prompts` (under the feature lock: one tokenizer/model)."""
        with self._feature_lock:
            return self.backbone.generate(prompts, max_new_tokens)

    @property
    def link(self) -> Any:
        """The team's HCP link (`agents.protocol.link.HcpLink`), or None when messages go uncompressed."""
        return self.policy.link
