"""Per-agent LoRA adapters on one shared backbone: gradients, caching, save/load with PEFT."""

from __future__ import annotations

import pytest
import torch

from agents.adapters import AdapterError, LoraSettings, TeamAdapters
from agents.backbone import Backbone
from tests.fixtures.tiny_models import build_tiny_causal_lm

torch.set_num_threads(1)
AGENTS = ("guesser", "clue_0", "clue_1")


@pytest.fixture()
def team(tmp_path):
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="last")
    adapters = TeamAdapters(backbone, {a: LoraSettings(r=2, alpha=4) for a in AGENTS})
    for agent in AGENTS:  # LoRA B starts at zero; make every adapter change the output
        for name, parameter in adapters.named_parameters(agent):
            if "lora_B" in name:
                torch.nn.init.normal_(parameter, std=0.1)
    return backbone, adapters


def test_every_adapter_gets_gradients_in_a_joint_update(team):
    backbone, adapters = team
    # Per-agent forwards, then ONE backward: PEFT's set_adapter would freeze all but the last.
    loss = sum(backbone.encode(["The number is odd."], adapter=a).pow(2).sum() for a in AGENTS)
    loss.backward()
    for agent in AGENTS:
        grads = [p.grad for p in adapters.parameters(agent)]
        assert grads and all(g is not None for g in grads), agent
        assert sum(g.abs().sum().item() for g in grads) > 0, agent
    # The frozen base gets none.
    assert all(p.grad is None for n, p in backbone.model.named_parameters() if "lora_" not in n)


def test_adapters_change_the_embedding_and_bare_model_is_untouched(team):
    backbone, adapters = team
    with torch.no_grad():
        bare = backbone.encode(["The number is even."])
        per_agent = [backbone.encode(["The number is even."], adapter=a) for a in AGENTS]
    assert all(not torch.allclose(bare, v) for v in per_agent)
    assert not torch.allclose(per_agent[0], per_agent[1])


def test_frozen_adapter_is_cached_and_trainable_is_not(team):
    backbone, adapters = team
    first = backbone.encode(["It rains."], adapter="clue_0")
    assert first.requires_grad and backbone.cache_size == 0  # trainable: never cached
    adapters.set_trainable("clue_0", False)
    frozen = backbone.encode(["It rains."], adapter="clue_0")
    assert not frozen.requires_grad and backbone.cache_size == 1
    torch.testing.assert_close(frozen, first.detach())


def test_save_then_load_with_peft_and_with_team_adapters(team, tmp_path):
    from peft import PeftModel
    from transformers import AutoModel

    backbone, adapters = team
    with torch.no_grad():
        expected = backbone.encode(["The number is odd."], adapter="clue_1")
    folders = adapters.save(tmp_path / "adapters")
    assert [f.name for f in folders] == list(AGENTS)
    assert not list((tmp_path / "adapters").rglob("*.bin"))  # safetensors only, no pickle
    # A standalone PEFT load of one agent's folder reproduces that agent's embedding.
    base = AutoModel.from_pretrained(backbone.name)
    single = PeftModel.from_pretrained(base, str(tmp_path / "adapters" / "clue_1"))
    fresh = Backbone(single, backbone.tokenizer, name="reload", pooling="last")
    torch.testing.assert_close(fresh.encode(["The number is odd."]), expected, atol=1e-5, rtol=1e-5)
    # And a fresh team loads every adapter back.
    other = Backbone.load(backbone.name, pooling="last")
    reloaded = TeamAdapters(other, {a: LoraSettings(r=2, alpha=4) for a in AGENTS})
    reloaded.load(tmp_path / "adapters")
    with torch.no_grad():
        torch.testing.assert_close(other.encode(["The number is odd."], adapter="clue_1"), expected)


def test_corrupted_or_mismatched_adapter_files_give_clear_errors(team, tmp_path):
    backbone, adapters = team
    adapters.save(tmp_path / "ok")
    (tmp_path / "ok" / "clue_0" / "adapter_model.safetensors").write_bytes(b"garbage")
    with pytest.raises(AdapterError, match="corrupted"):
        adapters.load(tmp_path / "ok")
    with pytest.raises(AdapterError, match="missing"):
        adapters.load(tmp_path / "empty")
    with pytest.raises(AdapterError, match="no adapter named"):
        adapters.parameters("nobody")
    with pytest.raises(AdapterError, match="matches no module"):
        TeamAdapters(Backbone.load(backbone.name), {"a": LoraSettings(target_modules=("nonexistent",))})
