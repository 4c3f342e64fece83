"""The keyword-router fallback follows the drawn roster: each intent goes to the agent that owns it."""

from __future__ import annotations

import numpy as np

from agents.envs.customer_service.rules import KeywordRouter
from agents.envs.customer_service.tickets import INTENTS
from serving.breaker import KeywordRouterFallback, make_fallback

TEAM = [
    {"id": "shopping_guide", "role": "shopping_guide"},
    {"id": "logistics", "role": "logistics", "intents": ["order_tracking", "delivery_delay"]},
    {"id": "address_desk", "role": "custom", "intents": ["address_change"], "prompt": "Address changes."},
    {"id": "dispute_mediator", "role": "dispute_mediator"},
    {"id": "quality_supervisor", "role": "quality_supervisor"},
]
# the template's rules, written before the address desk existed: "address" still routes to logistics
RULES = [
    {"keywords": ["refund", "broken"], "route_to": "dispute_mediator"},
    {"keywords": ["where is", "address"], "route_to": "logistics"},
]


def _obs(text: str, drafted=()) -> dict:
    return {"ticket": text, "draft": np.array([i in drafted for i in INTENTS], np.int8), "step": 0}


def _fallback() -> KeywordRouterFallback:
    fallback = make_fallback({"kind": "keyword_router", "rules": RULES}, "customer_service", team=TEAM)
    assert isinstance(fallback, KeywordRouterFallback)
    fallback.router = KeywordRouter()  # untuned hand rules: fast
    return fallback


def test_an_intent_is_answered_by_its_new_owner():
    fallback = _fallback()
    text = "I just moved, please change the address on my order"
    assert fallback.intents_for(text) == ("address_change",)
    acts = fallback.actions({a["id"]: _obs(text) for a in TEAM})
    assert acts["address_desk"][0] == 1 and "routed address_change" in acts["address_desk"][1]
    assert acts["logistics"][0] == 0  # routed, but owns nothing the ticket asks
    assert fallback.act("quality_supervisor", _obs(text, ["address_change"]))[0] == 1  # approve


def test_tracking_stays_with_logistics():
    fallback = _fallback()
    text = "where is my parcel? it is two weeks late"
    acts = fallback.actions({a["id"]: _obs(text) for a in TEAM})
    assert acts["address_desk"][0] == 0
    assert acts["logistics"][0] in (1, 2)
