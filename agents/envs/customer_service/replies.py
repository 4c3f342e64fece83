"""Customer-service reply templates: one deterministic sentence group per shipped intent, with slots filled
from the ticket (order number, product, dates, address). The template writer (`serving.generation.template`)
asks for them through the routing interface (`agents.envs.routing.intent_reply`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.envs.customer_service.phrasings import SLOTS
from agents.envs.customer_service.tickets import INTENTS

# ---- slots ------------------------------------------------------------------------------------------

_ORDER = re.compile(
    r"(?:\border|\bord\.?|#)\s*(?:no\.?|number|num|nr\.?|id)?\s*[:#]?\s*([A-Z]{0,4}-?\d{3,12})\b", re.I
)
_WEEKDAY = r"(?:last |next |this )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = re.compile(
    rf"\b({_WEEKDAY}|the \d{{1,2}}(?:st|nd|rd|th)|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?"
    rf"|{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}|the weekend)\b",
    re.I,
)
_DURATION = re.compile(
    r"\b((?:over |almost |nearly |about |more than )?(?:\d+|one|two|three|four|five|six|a)"
    r"(?: week and a half| (?:days?|weeks?|months?)))\b",
    re.I,
)
_STREET = re.compile(r"\b(\d+ [A-Z][a-z]+ (?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Way|Drive|Dr)\b[^,.;!?]*)")
_PRODUCTS = sorted({*SLOTS["product"], *SLOTS["category"]}, key=len, reverse=True)
_PLACES = sorted(SLOTS["place"], key=len, reverse=True)


@dataclass(frozen=True)
class Slots:
    """What the ticket says that a reply can repeat back; None when the ticket does not say it."""

    order: str | None = None
    product: str | None = None
    day: str | None = None
    duration: str | None = None
    address: str | None = None


def extract_slots(ticket: str) -> Slots:
    """Order number, product, the date it was due, how long it has been, and a new address, if stated."""
    low = ticket.lower()
    order = _ORDER.search(ticket)
    product = next((p for p in _PRODUCTS if p.lower() in low), None)
    day, duration = _DAY.search(ticket), _DURATION.search(ticket)
    place = next((p for p in _PLACES if p.lower() in low), None)
    street = _STREET.search(ticket)
    return Slots(
        order=order.group(1) if order else None,
        product=product,
        day=day.group(1) if day else None,
        duration=duration.group(1) if duration else None,
        address=place or (street.group(1).strip() if street else None),
    )


# ---- the sentences ----------------------------------------------------------------------------------


def _the(slots: Slots, default: str) -> str:
    return f"the {slots.product}" if slots.product else default


def _on_order(slots: Slots) -> str:
    return f" (order #{slots.order})" if slots.order else ""


def intent_sentence(intent: str, slots: Slots) -> str:
    """The template reply to one intent, with the ticket's slots filled in."""
    if intent == "product_question":
        return (
            f"Thanks for your question about {_the(slots, 'the product')}. I've checked its product page and "
            "the manufacturer's specifications and sent you the details you asked about; if anything is "
            "still unclear, reply here and I'll confirm it before you buy."
        )
    if intent == "recommendation":
        like = f" similar to the {slots.product}" if slots.product else ""
        return (
            f"For a recommendation{like}, I've put together a short list of our best-rated options with "
            "prices and honest pros and cons; tell me your budget and I'll narrow it down to one."
        )
    if intent == "order_tracking":
        return (
            f"I've looked up your order{f' #{slots.order}' if slots.order else ''}"
            f"{f' for the {slots.product}' if slots.product else ''}: it is on its way, "
            "and the tracking link in your confirmation e-mail shows where it is now. I'll let you know as "
            "soon as it is out for delivery."
        )
    if intent == "delivery_delay":
        late = f" — {slots.duration} is far longer than it should take" if slots.duration else ""
        due = f" It was due {slots.day}." if slots.day else ""
        return (
            f"I'm sorry {_the(slots, 'your parcel')}{_on_order(slots)} is late{late}.{due} I've opened an "
            "investigation with the carrier and will send you a firm delivery date within 24 hours; if the "
            "parcel can't be found, we'll send a replacement or refund you in full."
        )
    if intent == "address_change":
        where = f" to {slots.address}" if slots.address else " to the new address you gave us"
        return (
            f"I've changed the delivery address{_on_order(slots)}{where}. If the parcel has already left our "
            "warehouse, I've asked the carrier to redirect it."
        )
    if intent == "return_refund":
        return (
            f"I've started a return for {_the(slots, 'your item')}{_on_order(slots)}: a prepaid return label "
            "is on its way to your e-mail, and the refund is issued within 5 business days of the item "
            "reaching us."
        )
    if intent == "damaged_item":
        return (
            f"I'm sorry {_the(slots, 'your item')} arrived damaged. Reply with a photo of the damage and we'll "
            "send a free replacement straight away, or a full refund if you prefer; there's no need to send "
            "the broken item back."
        )
    if intent == "complaint":
        return (
            "I'm sorry for the experience you've had, and thank you for telling us. I've logged your "
            "complaint and passed it to a team lead, who will contact you personally within one business "
            "day to put it right."
        )
    raise ValueError(f"unknown intent {intent!r}; expected one of {', '.join(INTENTS)}")


def reply(intent: str, ticket: str) -> str | None:
    """The template reply to one of the shipped intents, slots filled from ``ticket`` (None: not one)."""
    return intent_sentence(intent, extract_slots(ticket)) if intent in INTENTS else None
