"""Streaming replies: each backend writes its answer as chunks (the openai_compatible one through the
official client's ``stream=True`` against a chat server process on loopback), the chunks come in order and
add up to the very answer `generate` gives, and the guard hands them on per part and agent while the
deadline and the checks still hold: a part that faults mid-stream is settled with the template's text."""

from __future__ import annotations

import random
import threading

import pytest

from serving.generation import GenerationConfig, make_generator
from serving.generation.base import Generation, StopCutter, cut_at_stop
from serving.generation.openai_compatible import OpenAICompatible
from serving.generation.template import ticket_context, write_part
from serving.generation.tickets import TicketWriter
from tests.serving.generation.conftest import KEY_ENV, SECRET, chat_server

ASK = [{"role": "user", "content": ticket_context("my kettle is late, order #40404", ["delivery_delay"])}]
TEAM = [
    {"id": "shopping_guide", "role": "shopping_guide", "prompt": "You are the shopping guide."},
    {"id": "logistics", "role": "logistics", "prompt": "You are the logistics agent."},
    {"id": "dispute_mediator", "role": "dispute_mediator", "prompt": "You are the dispute mediator."},
]
TICKET = "my kettle arrived broken and it was late, order #40404"
PLAYED = {
    "info": {"predicted_intents": ["product_question", "delivery_delay", "damaged_item"], "approved": True},
    "decisions": [],
}


def collect(items) -> tuple[list[str], Generation]:
    """(chunks, the final answer) of a `stream`, checking the answer comes last and only once."""
    items = list(items)
    *chunks, final = items
    assert isinstance(final, Generation) and all(isinstance(c, str) and c for c in chunks)
    return chunks, final


def test_chunks_cut_at_stop_strings_exactly_as_the_whole_text_is():
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice("ab\n#x ") for _ in range(rng.randint(0, 40)))
        stop = [
            "".join(rng.choice("ab\n#") for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(0, 3))
        ]
        cutter, shown, at = StopCutter(stop), "", 0
        while at < len(text):
            step = rng.randint(1, 6)
            shown += cutter.feed(text[at : at + step])
            at += step
            assert not any(s in shown for s in stop)  # never past a stop string, even for a moment
        shown += cutter.flush()
        assert shown == cutter.text == cut_at_stop(text, stop)


def test_the_template_streams_its_sentences():
    backend = make_generator(GenerationConfig())
    chunks, final = collect(backend.stream("s", ASK))
    assert len(chunks) >= 3 and "".join(chunks) == final.text == backend.generate("s", ASK).text


@pytest.mark.parametrize("served", ["template", "tiny_lm"])
def test_openai_compatible_streams_the_same_answer_in_order(served, tmp_path, request):
    model_dir = request.getfixturevalue("tiny_lm_dir") if served == "tiny_lm" else None
    with chat_server(tmp_path / "server.log", model_dir) as url:
        config = GenerationConfig(
            backend="openai_compatible", model="tiny", base_url=url, api_key_env=KEY_ENV, max_retries=0,
            prompt_price_per_1k=1.0, completion_price_per_1k=2.0,
        )  # fmt: skip
        backend = OpenAICompatible(config, SECRET)
        whole = backend.generate("You are the logistics agent.", ASK, max_tokens=24)
        chunks, final = collect(backend.stream("You are the logistics agent.", ASK, max_tokens=24))
        backend.close()
    log = (tmp_path / "server.log").read_text()
    assert f"200 stream {len(chunks)} chunks" in log  # the server sent them one event each …
    words = whole.text.split()
    assert (
        len(words) > 1 and len(chunks) == len(words) and [c.strip() for c in chunks] == words
    )  # … and they came in order
    assert "".join(chunks).strip() == final.text == whole.text  # the same answer as without streaming
    assert final.usage == whole.usage and final.usage["completion_tokens"] > 0 and final.cost == whole.cost
    assert final.backend == "openai_compatible" and final.attempts == 1
    assert SECRET not in log


def test_a_stop_string_ends_the_stream_where_it_ends_the_answer(tmp_path):
    with chat_server(tmp_path / "server.log") as url:
        config = GenerationConfig(backend="openai_compatible", model="m", base_url=url, max_retries=0)
        backend = OpenAICompatible(config, SECRET)
        stop = ["carrier"]
        whole = backend.generate("s", ASK, stop=stop)
        chunks, final = collect(backend.stream("s", ASK, stop=stop))
        backend.close()
    assert whole.text and "carrier" not in "".join(chunks)
    assert "".join(chunks).strip() == final.text == whole.text


def test_the_local_model_streams_inside_its_batches(tiny_lm_dir):
    lm = make_generator(GenerationConfig(backend="local", model=str(tiny_lm_dir)))
    try:
        whole = lm.generate("You are the logistics agent.", ASK, max_tokens=12)
        results: dict[int, tuple[list[str], Generation]] = {}

        def read(i: int) -> None:
            results[i] = collect(lm.stream("You are the logistics agent.", ASK, max_tokens=12))

        before = lm.batches
        threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        lm.close()
    assert lm.batches - before < 4  # streamed requests still share model.generate calls
    for chunks, final in results.values():
        assert len(chunks) > 1  # a token at a time, not the answer at the end
        assert "".join(chunks).strip() == final.text == whole.text and final.usage == whole.usage


def written(url: str, **extra) -> tuple[dict, list[tuple], list[tuple]]:
    """A reply written with listeners: (reply, every chunk event, every settled-part event), in the order
    the listeners heard them (one list, so a chunk after its part's settling would show)."""
    settings = dict(backend="openai_compatible", model="m", base_url=url, api_key_env=KEY_ENV, max_retries=0)
    writer = TicketWriter.build(GenerationConfig(**{**settings, **extra}), TEAM, api_key=SECRET)
    heard: list[tuple] = []
    lock = threading.Lock()

    def on_chunk(index, agent, text):
        with lock:
            heard.append(("chunk", index, agent, text))

    def on_part(index, part):
        with lock:
            heard.append(("part", index, part["agent"], part))

    reply = writer.answer(TICKET, PLAYED, on_part=on_part, on_chunk=on_chunk)
    writer.close()
    return reply, heard


def test_the_guard_streams_every_part_tagged_by_agent_and_the_reply_is_unchanged(tmp_path):
    with chat_server(tmp_path / "server.log") as url:
        reply, heard = written(url)
        settings = dict(backend="openai_compatible", model="m", base_url=url, max_retries=0)
        quiet = TicketWriter.build(GenerationConfig(**settings), TEAM, api_key=SECRET)
        plain = quiet.answer(TICKET, PLAYED)  # nobody listening: no streaming
        quiet.close()
    agents = [p["agent"] for p in reply["parts"]]
    assert agents == ["shopping_guide", "logistics", "dispute_mediator"]
    for index, part in enumerate(reply["parts"]):
        chunks = [h for h in heard if h[0] == "chunk" and h[1] == index]
        assert len(chunks) > 3 and {c[2] for c in chunks} == {part["agent"]}  # tagged by the writing agent
        assert "".join(c[3] for c in chunks).strip() == part["text"] and part["source"] == "model"
        settled = heard.index(("part", index, part["agent"], part))
        assert all(heard.index(c) < settled for c in chunks)  # no chunk after its part was settled
    assert reply["text"] == plain["text"] and reply["faults"] == [] == plain["faults"]
    assert [p["text"] for p in reply["parts"]] == [p["text"] for p in plain["parts"]]
    assert reply["usage"] == plain["usage"]


@pytest.mark.parametrize(
    ("injected", "kind", "extra"),
    [("stall", "generation_timeout", {"deadline_s": 1.0}), ("refusal", "refusal", {})],
)
def test_a_part_that_faults_mid_stream_is_settled_with_the_template(tmp_path, injected, kind, extra):
    with chat_server(
        tmp_path / "server.log", faults=injected, slow_s=3.0, fault_match="the logistics agent"
    ) as url:
        reply, heard = written(url, **extra)
    bad = reply["parts"][1]
    assert bad["agent"] == "logistics" and bad["fault"] == kind and bad["source"] == "fallback"
    assert bad["text"] == write_part(TICKET, ["delivery_delay"])
    streamed = "".join(h[3] for h in heard if h[0] == "chunk" and h[1] == 1)
    assert streamed and streamed.strip() != bad["text"]  # some of the backend's text had been shown …
    settled = [i for i, h in enumerate(heard) if h[0] == "part" and h[1] == 1]
    assert settled and not [h for h in heard[settled[0] :] if h[0] == "chunk" and h[1] == 1]  # … then no more
    assert heard[settled[0]][3] == bad  # the settled part says what replaced it and why
    assert [p["fault"] for p in reply["parts"]] == [None, kind, None]
    assert reply["breaker"] == "open"


def test_an_answer_growing_past_the_limit_is_cut_off_mid_stream(tmp_path):
    with chat_server(tmp_path / "server.log") as url:
        reply, heard = written(url, max_chars=60)
    assert all(p["fault"] == "overlong_answer" for p in reply["parts"])
    for index in range(3):
        streamed = "".join(h[3] for h in heard if h[0] == "chunk" and h[1] == index)
        assert len(streamed.strip()) <= 60  # the reader never saw more than the limit


def test_the_template_writer_streams_whole_parts_whatever_the_limit():
    writer = TicketWriter.build(GenerationConfig(max_chars=40), TEAM)  # the template is never judged
    heard: list[tuple] = []
    reply = writer.answer(TICKET, PLAYED, on_chunk=lambda *chunk: heard.append(chunk))
    plain = writer.answer(TICKET, PLAYED)
    assert reply == {**plain, "latency_ms": reply["latency_ms"], "parts": reply["parts"]}
    assert [p["text"] for p in reply["parts"]] == [p["text"] for p in plain["parts"]]
    for index, part in enumerate(reply["parts"]):
        assert len(part["text"]) > 40 and part["fault"] is None
        assert "".join(h[2] for h in heard if h[0] == index) == part["text"]
        assert {h[1] for h in heard if h[0] == index} == {part["agent"]}
