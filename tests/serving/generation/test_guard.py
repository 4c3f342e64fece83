"""Generation under the breaker: a chat server process that misbehaves on purpose (slow, HTTP 500, empty,
garbage, refusal, not JSON) behind the openai_compatible backend; every request is still answered, in
time, and every fault is on the record."""

from __future__ import annotations

import time

import pytest

from serving.generation import GenerationConfig
from serving.generation.guard import judge
from serving.generation.template import write_part
from serving.generation.tickets import TicketWriter
from tests.serving.generation.conftest import KEY_ENV, SECRET, chat_server

AGENTS = [{"id": "logistics", "role": "logistics", "prompt": "You are the logistics agent."}]
TICKET = "where is my kettle, order #40404?"
PLAYED = {"info": {"predicted_intents": ["order_tracking"], "approved": True}, "decisions": []}


def writer(url: str, **extra) -> TicketWriter:
    settings = dict(backend="openai_compatible", model="m", base_url=url, api_key_env=KEY_ENV, max_retries=0)
    return TicketWriter.build(GenerationConfig(**{**settings, **extra}), AGENTS, api_key=SECRET)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("", "empty_answer"), ("   ", "empty_answer"), ("x" * 61, "overlong_answer"),
     ("I'm sorry, but I can't help with that.", "refusal"), ("As an AI language model I think", "refusal"),
     ("#%&*@!~^$ 12 ##", "garbage"), ("ok \ufffd\ufffd", "garbage"), ("Your parcel is on its way.", None)],
)  # fmt: skip
def test_judge(text, kind):
    found = judge(text, max_chars=60)
    assert (found[0] if found else None) == kind


def test_every_injected_fault_is_answered_by_the_template_in_time(tmp_path):
    faults = "slow,error,empty,garbage,refusal,broken,ok"
    # the deadline is generous because the fault cycle is the server's: a request that reaches it after the
    # next one (a loaded machine) swaps their faults; "slow" still misses the deadline by seconds
    deadline_s = 2.0
    with chat_server(tmp_path / "server.log", faults=faults, slow_s=deadline_s + 3.0) as url:
        w = writer(url, timeout_s=10.0, deadline_s=deadline_s, cooldown_s=0.0)  # after a fault: a trial
        replies, took = [], []
        for _ in range(14):
            started = time.monotonic()
            replies.append(w.answer(TICKET, PLAYED))
            took.append(time.monotonic() - started)
        w.close()
    assert all(r["text"] and "40404" in r["text"] for r in replies)  # every request answered …
    assert max(took) < deadline_s + 0.4  # … within its deadline (plus the template's moment)
    kinds = [r["parts"][0]["fault"] for r in replies]
    expected = [
        "generation_timeout",
        "generation_error",
        "empty_answer",
        "garbage",
        "refusal",
        "generation_error",
        None,
    ]
    assert kinds == expected * 2
    for reply in replies:
        part = reply["parts"][0]
        if part["fault"]:
            assert part["source"] == "fallback" and part["text"] == write_part(TICKET, ["order_tracking"])
            assert reply["fallback"] is True and reply["faults"][0]["kind"] == part["fault"]
        else:
            assert part["source"] == "trial" and part["backend"] == "openai_compatible"
    transitions = list(w.writer.breaker.transitions)
    assert [t["reason"] for t in transitions[:3]] == ["generation_timeout", "cooldown", "generation_error"]
    assert transitions[-1]["to"] == "closed"  # the last trial was good


def test_an_open_breaker_spares_the_server_until_its_cool_down(tmp_path):
    log = tmp_path / "server.log"
    with chat_server(log, faults="error,ok") as url:
        w = writer(url, cooldown_s=60.0)
        first, second = w.answer(TICKET, PLAYED), w.answer(TICKET, PLAYED)
        w.close()
    assert first["parts"][0]["fault"] == "generation_error" and first["breaker"] == "open"
    assert second["parts"][0]["source"] == "fallback" and second["parts"][0]["fault"] is None
    assert "breaker is open" in second["parts"][0]["fault_detail"]
    assert log.read_text().count("POST /v1/chat/completions") == 1  # the second request never left


def test_overlong_answers_are_faults(tmp_path):
    with chat_server(tmp_path / "server.log") as url:
        w = writer(url, max_chars=40)
        reply = w.answer(TICKET, PLAYED)
        w.close()
    assert reply["parts"][0]["fault"] == "overlong_answer" and reply["parts"][0]["source"] == "fallback"


def test_a_dead_server_is_a_fault_and_the_key_stays_out_of_the_record(tmp_path):
    with chat_server(tmp_path / "server.log") as url:
        pass  # stopped: nothing listens there any more
    reply = writer(url, deadline_s=2.0).answer(TICKET, PLAYED)
    assert reply["parts"][0]["fault"] == "generation_error" and reply["text"]
    assert SECRET not in repr(reply)


TEAM = [
    {"id": "shopping_guide", "role": "shopping_guide", "prompt": "You are the shopping guide."},
    {"id": "logistics", "role": "logistics", "prompt": "You are the logistics agent."},
    {"id": "dispute_mediator", "role": "dispute_mediator", "prompt": "You are the dispute mediator."},
]
THREE_PARTS = {
    "info": {"predicted_intents": ["product_question", "order_tracking", "damaged_item"], "approved": True},
    "decisions": [],
}


@pytest.mark.parametrize(
    ("faulty", "kind", "injected"), [(1, "refusal", "refusal"), (2, "generation_error", "error")]
)
def test_a_fault_on_a_later_part_faults_the_reply_and_the_breaker_hears_it(tmp_path, faulty, kind, injected):
    prompt = TEAM[faulty]["prompt"]
    with chat_server(tmp_path / "server.log", faults=injected, fault_match=prompt) as url:
        settings = dict(backend="openai_compatible", model="m", base_url=url, api_key_env=KEY_ENV,
                        max_retries=0, cooldown_s=60.0)  # fmt: skip
        w = TicketWriter.build(GenerationConfig(**settings), TEAM, api_key=SECRET)
        reply = w.answer(TICKET, THREE_PARTS)
        w.close()
    assert [p["agent"] for p in reply["parts"]] == ["shopping_guide", "logistics", "dispute_mediator"]
    for i, part in enumerate(reply["parts"]):  # each part keeps its own outcome
        if i == faulty:
            assert (part["fault"], part["source"]) == (kind, "fallback")
            assert part["text"] == write_part(TICKET, part["intents"])
        else:
            assert (part["fault"], part["source"]) == (None, "model") and part[
                "backend"
            ] == "openai_compatible"
    assert reply["fallback"] is True
    assert reply["faults"] == [
        {"agent": TEAM[faulty]["id"], "kind": kind, "detail": reply["parts"][faulty]["fault_detail"]}
    ]
    # the writer's breaker heard the later part's fault: open, and the transition names that part
    assert reply["breaker"] == "open"
    [opened] = [t for t in w.writer.breaker.transitions if t["to"] == "open"]
    assert opened["reason"] == kind and f"part {faulty + 1} ({TEAM[faulty]['id']})" in opened["detail"]
