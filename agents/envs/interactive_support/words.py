"""What the customer reads after a live turn (`live.LiveSupportEnv`): the team's decision said in words.

A clarifying question is a question, an answer names the problem and the remedy (and the order number when
the remedy needs one) and asks whether it solves the problem, an escalation says a person takes over.
Templates only: the decision is the team's; these sentences just say it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

QUESTIONS = {
    "order": "Could you tell me your order number?",
    "problem": "Could you tell me what exactly went wrong?",
    "goal": "What would you like us to do: a refund, a replacement, or help to sort it out yourself?",
}
PROBLEM_WORDS = {
    "damaged": "the item arrived damaged",
    "wrong_item": "you received the wrong item",
    "late": "your delivery is late",
    "billing": "there is a problem with your bill",
    "account": "you cannot get into your account",
    "warranty": "your product needs a warranty repair",
}
REMEDY_WORDS = {
    "refund": "I have started a refund{order}.",
    "replacement": "I have arranged a replacement{order}.",
    "guidance": "Here is what to do, following our help article on this.",
}
WHO = {"question": "triage", "answer": "reviewer", "escalated": "triage", "left": "team", "accepted": "team"}
"""The agent whose decision the reply says (the reviewer sends an answer; triage asks and escalates)."""


def reply_text(event: Mapping[str, Any] | None) -> str:
    """The words for one turn's ``event`` (see `live`)."""
    kind = (event or {}).get("kind")
    if kind == "question":
        return QUESTIONS[str(event["fact"])]
    if kind == "answer":
        order = f" for order {event['order_number']}" if event.get("order_number") else ""
        remedy = REMEDY_WORDS[str(event["remedy"])].format(order=order)
        return f"I understand {PROBLEM_WORDS[str(event['problem'])]}. {remedy} Does this solve it?"
    if kind == "escalated":
        return "I am handing your conversation to a colleague: a person from our support team takes over from here."
    if kind == "accepted":
        return "Glad that is solved. This conversation is now closed."
    if kind == "failed":
        return "I am sorry we could not solve this. This conversation is now closed."
    return "We could not finish in time. This conversation has ended; please write to us again."


def speaker(event: Mapping[str, Any] | None) -> str:
    """Which agent's decision the reply says."""
    return WHO.get(str((event or {}).get("kind")), "team")
