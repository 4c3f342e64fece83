"""The local backend: a causal LM directory through transformers, greedy, batched, usage counted."""

from __future__ import annotations

import concurrent.futures as futures

import pytest

from serving.generation import GenerationConfig, GenerationError, make_generator
from serving.generation.local import LocalCausalLM

ASK = [{"role": "user", "content": "Ticket: where is my parcel?\nHandle: order_tracking"}]


@pytest.fixture(scope="module")
def lm(tiny_lm_dir):
    generator = make_generator(GenerationConfig(backend="local", model=str(tiny_lm_dir)))
    yield generator
    generator.close()


def test_generates_text_with_usage_and_cost(tiny_lm_dir):
    priced = LocalCausalLM(tiny_lm_dir, prompt_price_per_1k=1.0, completion_price_per_1k=2.0)
    try:
        answer = priced.generate("You are the logistics agent.", ASK, max_tokens=12)
    finally:
        priced.close()
    assert answer.text and answer.backend == "local" and answer.latency_ms > 0
    assert answer.usage["completion_tokens"] == 12 and answer.usage["prompt_tokens"] > 10
    assert answer.cost == pytest.approx((answer.usage["prompt_tokens"] + 2 * 12) / 1000)


def test_greedy_answers_are_deterministic_and_batched_answers_match_single_ones(lm):
    one = lm.generate("You are the logistics agent.", ASK, max_tokens=10)
    again = lm.generate("You are the logistics agent.", ASK, max_tokens=10)
    assert one.text == again.text
    short = [{"role": "user", "content": "hi"}]
    before = lm.batches
    many = lm.generate_many(
        [("You are the logistics agent.", ASK), ("s", short), ("s", short)], max_tokens=10
    )
    assert lm.batches == before + 1  # three requests, one model.generate call
    assert many[0].text == one.text  # left padding does not change the answer
    assert many[1].text == many[2].text


def test_concurrent_callers_share_batches(lm):
    before = lm.batches
    with futures.ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(lambda i: lm.generate("s", [{"role": "user", "content": f"ticket {i}"}], 8), range(16))
        )
    assert all(a.usage["completion_tokens"] == 8 for a in answers)
    assert lm.batches - before < 16  # some requests were answered together


def test_long_prompts_keep_their_end_and_stop_strings_cut(lm):
    long = [{"role": "user", "content": "word " * 400 + "Ticket: late parcel"}]
    answer = lm.generate("s", long, max_tokens=8)
    assert answer.usage["prompt_tokens"] <= lm.context - 8
    first = lm.generate("s", ASK, max_tokens=12).text
    cut = lm.generate("s", ASK, max_tokens=12, stop=[first[3:5]]).text
    assert len(cut) < len(first)


def test_a_missing_model_directory_is_a_config_error(tmp_path):
    with pytest.raises(GenerationError) as err:
        LocalCausalLM(tmp_path / "nothing")
    assert err.value.kind == "config"
