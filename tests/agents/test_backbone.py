"""Backbone: default MiniLM (sha256-checked), local causal LMs, pooling, LoRA targets, cache, errors."""

from __future__ import annotations

import pytest
import torch

from agents.backbone import Backbone, BackboneError
from tests.fixtures.tiny_models import build_tiny_causal_lm, build_tiny_fused_qkv

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def minilm():
    return Backbone.load("default", pooling="mean", max_length=32)


@pytest.fixture(scope="module")
def tiny_lm_dir(tmp_path_factory):
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))


def test_default_backbone_is_minilm_and_separates_meanings(minilm):
    assert minilm.dim == 384 and not minilm.is_causal
    assert minilm.default_lora_targets() == ["key", "value"]
    vectors = minilm.encode(["The number is odd.", "The number is not even.", "It rains in Paris today."])
    cos = torch.nn.functional.cosine_similarity
    # Paraphrases are closer than an unrelated sentence: the pretrained weights, not random ones.
    assert cos(vectors[0], vectors[1], dim=0) > cos(vectors[0], vectors[2], dim=0) + 0.1


def test_cache_serves_repeated_texts_without_reencoding(minilm):
    minilm.clear_cache()
    before = minilm.encoded_sentences
    first = minilm.encode(["alpha one", "beta two", "alpha one"])
    assert minilm.encoded_sentences - before == 2  # duplicates encoded once
    second = minilm.encode(["beta two", "alpha one"])
    assert minilm.encoded_sentences - before == 2  # all from the cache
    assert torch.equal(second[1], first[0]) and torch.equal(first[0], first[2])
    minilm.clear_cache(None)
    assert minilm.cache_size == 0


def test_tampered_default_weights_are_refused(monkeypatch):
    import agents.backbone as backbone_module

    monkeypatch.setattr(backbone_module, "DEFAULT_MODEL_SHA256", "0" * 64)
    with pytest.raises(BackboneError, match="sha256"):
        Backbone.load("default")


def test_unknown_path_gives_clear_error(tmp_path):
    with pytest.raises(BackboneError, match="not a local directory"):
        Backbone.load(str(tmp_path / "nope"))
    with pytest.raises(BackboneError, match="no config.json"):
        Backbone.load(str(tmp_path))


def test_causal_lm_pools_last_real_token_regardless_of_padding(tiny_lm_dir):
    backbone = Backbone.load(str(tiny_lm_dir), pooling="last", max_length=32)
    assert backbone.is_causal and backbone.dim == 32
    assert backbone.default_lora_targets() == ["k_proj", "v_proj"]
    alone = backbone.encode(["The number is odd."])
    padded = backbone.encode(["The number is odd.", "The secret number is larger than seven today."])
    torch.testing.assert_close(alone[0], padded[0], atol=1e-5, rtol=1e-5)
    mean = Backbone.load(str(tiny_lm_dir), pooling="mean").encode(["The number is odd."])
    assert not torch.allclose(mean, alone)


def test_fused_qkv_architecture_is_refused_with_advice(tmp_path):
    backbone = Backbone.load(str(build_tiny_fused_qkv(tmp_path / "gpt2")))
    with pytest.raises(BackboneError, match="fused query/key/value.*target_modules"):
        backbone.default_lora_targets()


def test_bad_pooling_is_refused(tiny_lm_dir):
    with pytest.raises(BackboneError, match="pooling"):
        Backbone.load(str(tiny_lm_dir), pooling="max")
