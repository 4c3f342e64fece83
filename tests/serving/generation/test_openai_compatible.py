"""The openai_compatible backend through the official `openai` client, against a chat-completions server
process on loopback that serves the tiny local causal LM (or injects faults)."""

from __future__ import annotations

import time

import pytest

from serving.generation import GenerationConfig, GenerationError, make_generator
from serving.generation.openai_compatible import OpenAICompatible
from tests.serving.generation.conftest import KEY_ENV, SECRET, chat_server

ASK = [{"role": "user", "content": "Ticket: where is my parcel?\nHandle: order_tracking"}]


def config(url: str, **extra) -> GenerationConfig:
    return GenerationConfig(
        backend="openai_compatible", model="tiny", base_url=url, api_key_env=KEY_ENV, backoff_s=0.01, **extra
    )


def test_answers_with_usage_and_cost_from_the_local_model(tiny_lm_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with chat_server(tmp_path / "server.log", tiny_lm_dir) as url:
        backend = make_generator(config(url, prompt_price_per_1k=0.5, completion_price_per_1k=1.5))
        answer = backend.generate("You are the logistics agent.", ASK, max_tokens=9)
        backend.close()
    assert answer.text and answer.backend == "openai_compatible" and answer.attempts == 1
    assert answer.usage["completion_tokens"] == 9 and answer.usage["prompt_tokens"] > 10
    assert answer.cost == pytest.approx((0.5 * answer.usage["prompt_tokens"] + 1.5 * 9) / 1000)
    assert SECRET not in repr(backend) and SECRET not in (tmp_path / "server.log").read_text()


def test_a_500_is_retried_with_backoff_and_a_401_is_not(tiny_lm_dir, tmp_path):
    waits: list[float] = []
    with chat_server(tmp_path / "server.log", faults="error,error,ok") as url:
        backend = OpenAICompatible(config(url, max_retries=2), api_key=SECRET, sleep=waits.append)
        answer = backend.generate("s", ASK, max_tokens=5)
        assert answer.attempts == 3 and waits == [0.01, 0.02]  # doubling backoff
        waits.clear()
        with pytest.raises(GenerationError) as err:  # error, error, ok … : the third attempt is not allowed
            OpenAICompatible(config(url, max_retries=1), api_key=SECRET, sleep=waits.append).generate(
                "s", ASK
            )
        assert err.value.kind == "error_status" and err.value.status == 500 and "2 attempts" in str(err.value)
        wrong = OpenAICompatible(config(url, max_retries=3), api_key="sk-wrong-key-123", sleep=waits.append)
        with pytest.raises(GenerationError) as err:
            wrong.generate("s", ASK)
        assert err.value.status == 401 and "attempts" not in str(err.value)
        assert "sk-wrong-key-123" not in str(err.value)


def test_timeouts_and_dead_servers_are_errors_in_words(tmp_path):
    with chat_server(tmp_path / "server.log", faults="slow", slow_s=3.0) as url:
        backend = OpenAICompatible(config(url, timeout_s=0.3, max_retries=1), api_key=SECRET)
        started = time.monotonic()
        with pytest.raises(GenerationError) as err:
            backend.generate("s", ASK)
        assert err.value.kind == "timeout" and time.monotonic() - started < 2.5
    gone = OpenAICompatible(config(url, max_retries=0), api_key=SECRET)  # the server has stopped
    with pytest.raises(GenerationError) as err:
        gone.generate("s", ASK)
    assert err.value.kind in ("connection", "timeout") and SECRET not in str(err.value)


def test_a_body_that_is_not_a_completion_is_a_bad_response(tmp_path):
    with chat_server(tmp_path / "server.log", faults="broken") as url:
        with pytest.raises(GenerationError) as err:
            OpenAICompatible(config(url, max_retries=0), api_key=SECRET).generate("s", ASK)
    assert err.value.kind == "bad_response"


def test_the_key_comes_from_the_named_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with chat_server(tmp_path / "server.log") as url:
        assert make_generator(config(url)).generate("s", ASK).text  # the env key is accepted
        monkeypatch.setenv(KEY_ENV, "")
        with pytest.raises(GenerationError) as err:
            make_generator(config(url, max_retries=0)).generate("s", ASK)
        assert err.value.status == 401
