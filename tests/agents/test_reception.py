"""Gated reception (TeamPolicy reception="gated"): delivered messages are heard at full weight."""

from __future__ import annotations

import pytest
import torch

from agents.comm import allowed_links
from agents.policy import TeamPolicy


def _policy(reception: str) -> TeamPolicy:
    torch.manual_seed(0)
    return TeamPolicy(
        ["a", "b", "c", "g"], ["g"], 4, 8, allowed_links(4), hidden=6, d_msg=5, reception=reception
    )


def test_gated_receiver_hears_the_sum_of_delivered_messages_whatever_their_weights():
    policy = _policy("gated")
    embeddings = torch.randn(3, 4, 8)
    out = policy(embeddings, routing="random", threshold=0.2, generator=torch.Generator().manual_seed(1))
    messages = torch.einsum("bnm,nmk->bnk", policy.message(out.hidden), policy.sender_code)
    expected = out.delivered.float() @ messages
    assert torch.allclose(out.received, expected, atol=1e-6)
    weighted = _policy("weighted")
    again = weighted(embeddings, routing="random", threshold=0.2, generator=torch.Generator().manual_seed(1))
    assert torch.allclose(again.received, out.weights @ messages, atol=1e-6)
    assert not torch.allclose(again.received, out.received)


def test_unknown_reception_is_refused():
    with pytest.raises(ValueError, match="reception"):
        _policy("loud")
