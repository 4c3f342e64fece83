"""bench/probe_encoder_lora.py: the split encoder (cached lower layers + top layers) is the encoder, a LoRA fit
changes only the top layers' reading, and taking the adapter out restores the bare vectors."""

from __future__ import annotations

import pytest
import torch

from agents.backbone import Backbone
from bench.probe_encoder_lora import Reader, Stack, attach_lora, scores

torch.set_num_threads(1)

CLAUSES = [
    "where is my parcel",
    "the mug arrived cracked and the handle came off in the box",
    "can you recommend a rain jacket for hiking in Scotland",
    "refund please",
]


@pytest.fixture(scope="module")
def backbone():
    return Backbone.load("default")


def test_top_layers_on_cached_states_are_the_whole_encoder(backbone):
    stack = Stack(backbone, top=2)
    with torch.no_grad():
        split, whole = stack.encode(CLAUSES), backbone.encode(CLAUSES)
    assert stack.cut == 4 and set(stack.states) == set(CLAUSES)  # lower layers cached once per text
    assert torch.allclose(split, whole, atol=1e-5)  # and in the callers' order despite length sorting


def test_lora_fit_moves_the_vectors_and_unload_restores_them(backbone):
    stack = Stack(backbone, top=2)
    with torch.no_grad():
        bare = stack.encode(CLAUSES)
    wrapped, lora = attach_lora(stack, rank=4, targets=["query", "key", "value"])
    try:
        # only the top layers carry LoRA layers: the cached states stay valid
        names = [n for n, p in wrapped.named_parameters() if "lora_" in n]
        assert names and all(".layer.4." in n or ".layer.5." in n for n in names)
        reader = Reader(backbone.dim, 16, 2)
        optimizer = torch.optim.Adam(lora + list(reader.parameters()), lr=1e-2)
        segments = torch.arange(len(CLAUSES))
        target = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
        for _ in range(3):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                reader.pooled(stack.encode(CLAUSES, grad=True), segments, len(CLAUSES)), target
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            tuned = stack.encode(CLAUSES)
        assert (tuned - bare).abs().max() > 1e-3
    finally:
        wrapped.unload()
    with torch.no_grad():
        assert torch.allclose(stack.encode(CLAUSES), bare, atol=1e-6)


def test_scores_count_exact_sets_and_micro_f1():
    logits = torch.tensor([[1.0, -1.0], [1.0, 1.0], [-1.0, -1.0]])
    truth = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    result = scores(logits, truth)
    assert result["exact_match"] == pytest.approx(1 / 3, abs=1e-4)
    assert result["intent_f1"] == pytest.approx(2 * 2 / (2 * 2 + 2), abs=1e-4)  # tp 2, fp 1, fn 1
