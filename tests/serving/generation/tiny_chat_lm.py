"""A tiny random-weight causal LM that writes something (tests and bench/generation.py; no download).

`tests.fixtures.tiny_models.build_tiny_causal_lm` with one change: the end-of-text row of the output layer
is zeroed, so greedy decoding of random weights does not stop at the first token and every answer has
text to measure. Its context is 128 tokens; the local backend keeps a long prompt's end.
"""

from __future__ import annotations

from pathlib import Path

import torch

from tests.fixtures.tiny_models import build_tiny_causal_lm


def build_chat_lm(directory: str | Path, seed: int = 0) -> Path:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    directory = build_tiny_causal_lm(directory, seed=seed)
    model = AutoModelForCausalLM.from_pretrained(directory)
    eos = AutoTokenizer.from_pretrained(directory).eos_token_id
    with torch.no_grad():
        model.lm_head.weight[eos].zero_()  # its logit is 0, below the best of ~300 random ones
    model.save_pretrained(directory)
    return directory
