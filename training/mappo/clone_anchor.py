"""The clone's anchor (`training.clone_kl`): a run that starts from the teacher's clone keeps a frozen copy
of its starting actors and adds ``clone_kl · KL(π_clone ‖ π_θ)`` to the actor loss on every present step
of each PPO minibatch.

Why every step: the teacher's loss reaches only the steps where the sampled action differs from the
teacher's, so it cannot hold the policy's other steps where the clone put them; the KL term does, and
leaves PPO free to move where the advantage pays more than the divergence costs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import torch
from torch import nn


def frozen_start(actor: nn.Module, saved: Mapping[str, torch.Tensor] | None = None) -> nn.Module:
    """A frozen copy of ``actor`` (with ``saved`` parameters when a resumed run restores its anchor)."""
    anchor = copy.deepcopy(actor)
    if saved:
        anchor.load_state_dict(saved)
    return anchor.requires_grad_(False)


def anchor_for(trainer: Any, saved: Mapping[str, torch.Tensor] | None = None) -> nn.Module | None:
    """The run's anchor: the trainer's actors as they start (or as saved), None when `clone_kl` is off."""
    return frozen_start(trainer.actor, saved) if trainer.cfg.clone_kl > 0 else None


def masked_kl(anchor_logits: torch.Tensor, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over the ``mask``ed steps of KL(anchor ‖ policy) between two [..., A] logit tensors (actions
    masked invalid carry −1e9 in both and weigh nothing)."""
    anchor_logp = torch.log_softmax(anchor_logits, -1)
    kl = (anchor_logp.exp() * (anchor_logp - torch.log_softmax(logits, -1))).sum(-1)
    weight = mask.to(kl.dtype)
    return (kl * weight).sum() / weight.sum().clamp(min=1.0)


def anchor_kl(
    anchor: nn.Module, inputs: tuple[Any, ...], logits: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """KL(π_clone ‖ π_θ) on one minibatch: the anchor reads the same ``inputs`` the actor read for ``logits``."""
    with torch.no_grad():
        anchor_logits, _ = anchor(*inputs)
    return masked_kl(anchor_logits, logits, mask)
