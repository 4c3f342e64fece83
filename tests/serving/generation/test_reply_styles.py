"""Reply styles (serving/generation/styles.py) and the ticket writer: without a writer's choice the reply is
today's, byte for byte, and names no style; with one, the reply is written in it and says so."""

from __future__ import annotations

import pytest

from serving.generation import GenerationConfig
from serving.generation.styles import APOLOGY, styled_parts
from serving.generation.template import join_reply, write_part
from serving.generation.tickets import TicketWriter

TICKET = "my lamp arrived broken and I want a refund, also where is my other parcel?"
RESULT = {
    "status": "completed",
    "info": {"predicted_intents": ["order_tracking", "return_refund", "damaged_item"], "approved": True},
    "decisions": [],
}


@pytest.fixture
def writer():
    built = TicketWriter.build(GenerationConfig(backend="template"), team="Shop")
    yield built
    built.close()


def test_without_a_style_the_reply_is_todays_byte_for_byte(writer):
    reply = writer.answer(TICKET, RESULT)
    parts = [p["text"] for p in reply["parts"]]
    assert reply["text"] == join_reply(parts, "Shop")  # what the writer joined before styles existed
    assert "style" not in reply and APOLOGY not in reply["text"]
    assert writer.answer(TICKET, {**RESULT, "reply_style": "plain"})["text"] == reply["text"]
    assert styled_parts("plain", parts) == parts


def test_the_chosen_style_writes_the_reply_and_is_recorded(writer):
    plain = writer.answer(TICKET, RESULT)["text"]
    sorry = writer.answer(TICKET, {**RESULT, "reply_style": "apologetic"})
    assert sorry["style"] == "apologetic" and sorry["text"].startswith(f"Hello,\n\n{APOLOGY}\n\n")
    assert sorry["text"].replace(f"{APOLOGY}\n\n", "") == plain
    brief = writer.answer(TICKET, {**RESULT, "reply_style": "brief"})
    assert brief["style"] == "brief" and len(brief["text"]) < len(plain)
    steps = writer.answer(TICKET, {**RESULT, "reply_style": "steps"})
    assert "\n1. " in steps["text"] and "\n2. " in steps["text"]


def test_styles_need_no_domain_words_and_refuse_an_unknown_one():
    part = write_part("question about invoices", ["billing_question"])  # an intent no template knows
    assert styled_parts("brief", [part]) == ["Thanks for your message about billing question."]
    assert styled_parts("steps", [part])[0].startswith("1. Thanks for your message about billing question.")
    assert styled_parts("apologetic", []) == []  # nothing to answer: nothing to apologise before
    with pytest.raises(ValueError, match="unknown reply style 'terse'"):
        styled_parts("terse", [part])
