"""The template backend: slots from the ticket, one deterministic sentence group per intent, one reply."""

from __future__ import annotations

import pytest

from agents.envs.customer_service.replies import extract_slots
from agents.envs.customer_service.tickets import INTENTS
from serving.generation import GenerationConfig, TemplateGenerator
from serving.generation.template import (
    GREETING,
    NOTHING_TO_ANSWER,
    SIGN_OFF,
    join_reply,
    parse_context,
    ticket_context,
    write_part,
)
from serving.generation.tickets import TicketWriter


def test_slots_are_read_from_the_ticket():
    slots = extract_slots("my baby monitor, order #A12345, was due the 3rd and it's been nearly 3 weeks")
    assert (slots.order, slots.product, slots.day, slots.duration) == (
        "A12345",
        "baby monitor",
        "the 3rd",
        "nearly 3 weeks",
    )
    assert extract_slots("send order 99887 to 12 Elm Street instead").address == "12 Elm Street"
    assert extract_slots("please ship it to 7 Oak Road, thanks").address == "7 Oak Road"
    empty = extract_slots("hello?")
    assert (empty.order, empty.product, empty.day, empty.duration, empty.address) == (None,) * 5


@pytest.mark.parametrize("intent", INTENTS)
def test_every_intent_has_a_reply_that_repeats_the_slots(intent):
    text = write_part("the air fryer from order #55512 (due friday)", [intent])
    assert text and text == write_part(
        "the air fryer from order #55512 (due friday)", [intent]
    )  # deterministic
    if intent in ("order_tracking", "return_refund", "damaged_item", "delivery_delay", "product_question"):
        assert "air fryer" in text
    if intent in ("order_tracking", "return_refund", "delivery_delay", "address_change"):
        assert "55512" in text


def test_parts_are_joined_in_intent_order_into_one_reply():
    part = write_part("where is my kettle? also I want to complain", ["complaint", "order_tracking"])
    assert part.index("looked up your order") < part.index("complaint")
    reply = join_reply([part, "", "  "])
    assert reply.startswith(GREETING) and reply.endswith(SIGN_OFF) and reply.count("\n\n") == 2
    assert NOTHING_TO_ANSWER in join_reply([]) and write_part("hi", []) == NOTHING_TO_ANSWER
    signed = join_reply([part], "Shop support")
    assert signed.endswith(f"{SIGN_OFF}\nShop support") and "Customer service" not in signed


def test_generate_reads_the_shared_context():
    context = ticket_context(
        "my kettle broke", ["damaged_item"], ["logistics → order_tracking"], ["logistics (0.6)"]
    )
    assert parse_context(context) == ("my kettle broke", ("damaged_item",))
    answer = TemplateGenerator().generate(
        "You are the dispute mediator.", [{"role": "user", "content": context}]
    )
    assert "kettle arrived damaged" in answer.text and answer.cost == 0.0 and answer.backend == "template"
    assert answer.usage["prompt_tokens"] > 0 and answer.usage["completion_tokens"] == len(answer.text.split())
    cut = TemplateGenerator().generate("s", [{"role": "user", "content": context}], stop=["photo"])
    assert cut.text == answer.text[: answer.text.index("photo")]


def test_ticket_writer_credits_each_part_to_the_agent_that_acted():
    agents = [{"id": "guide", "role": "shopping_guide", "prompt": "You guide."},
              {"id": "logi", "role": "logistics", "prompt": "You ship."},
              {"id": "qs", "role": "quality_supervisor", "prompt": "You check."}]  # fmt: skip
    writer = TicketWriter.build(GenerationConfig(), agents)
    result = {
        "info": {"predicted_intents": ["recommendation", "order_tracking"], "approved": True},
        "decisions": [
            {
                "agent": "logi",
                "action": "track_order",
                "messages": {"received": [{"from": "guide", "weight": 0.7}]},
            },
            {"agent": "guide", "action": "recommend_product", "messages": {"received": []}},
        ],
    }
    plan = writer.plan("where is order #12345? and what kettle should I buy", result)
    assert [(p.agent, p.intents) for p in plan] == [
        ("guide", ("recommendation",)),
        ("logi", ("order_tracking",)),
    ]
    assert plan[1].system == "You ship." and "Heard from: guide (0.70)" in plan[1].messages[0]["content"]
    reply = writer.answer("where is order #12345? and what kettle should I buy", result)
    assert [p["agent"] for p in reply["parts"]] == ["guide", "logi"] and "#12345" in reply["text"]
    assert reply["approved"] is True and reply["faults"] == [] and reply["fallback"] is False
    holding = writer.answer("hmm", {"info": {"predicted_intents": []}, "decisions": []})
    assert [p["agent"] for p in holding["parts"]] == ["qs"] and NOTHING_TO_ANSWER in holding["text"]
