"""A specialist's default prompt follows the intents it owns under a catalogue of one's own; the shipped
template's prompts, and what its agents observe, stay byte for byte as they were."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from agents import places
from agents.envs import make_env, team_kwargs
from agents.envs.customer_service.owned_prompt import intents_prompt, owned_intents_prompt
from agents.roles import ROLES
from agents.spec import load_spec, spec_warnings
from agents.spec.prompts import filled_prompts

TEMPLATE = Path(__file__).resolve().parents[3] / "examples" / "customer_service.json"
# sha256 of the shipped template's four prompts joined by newlines, as they were before prompts could be
# derived from intents: a change to the template or to a role's default prompt changes its figures
SHIPPED_PROMPTS_SHA256 = "0ca41967bc9e73e837e528299b92f52ee4afd72776006c41cc62634b83eec4b4"
BIKE_SHOP = [
    {"name": "rental", "description": "Wants to rent a bike for a day or a week."},
    {"name": "repair_booking", "description": "Books a repair of their bike."},
]


@pytest.fixture
def bike_shop(tmp_path: Path):
    """A bike shop's labelled tickets as dataset ``bikes`` in a temporary datasets directory."""
    texts = {
        "rental": [
            "Can I rent a bike for Saturday?",
            "How much is a week's rental?",
            "I want to hire two bikes",
        ],
        "repair_booking": [
            "My brakes squeak, can you fix them?",
            "Book a service for my bike",
            "Flat tyre repair",
        ],
    }
    rows = [{"text": t, "intents": [name]} for name, said in texts.items() for t in said]
    folder = tmp_path / "customer_service"
    folder.mkdir()
    for name in ("bikes.jsonl", "bikes.validation.jsonl"):
        (folder / name).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    saved = places.places()
    places.configure(None, None, None, tmp_path)
    yield "bikes"
    places.configure(saved.models_dir, saved.tickets_dir, saved.runs_dir, saved.datasets_dir)


def _template() -> dict:
    return json.loads(TEMPLATE.read_text())


def _bike_shop(**owned: list[str]) -> dict:
    """The template trained on a bike shop's intents, with each named agent owning the given intents."""
    doc = _template()
    doc["environment"]["params"]["intents"] = copy.deepcopy(BIKE_SHOP)
    doc["environment"]["params"]["tickets"] = "bikes"
    for agent in doc["agents"]:
        if agent["id"] in owned:
            agent["intents"] = owned[agent["id"]]
    return doc


def _observed_prompts(spec) -> dict[str, str]:
    """What each agent observes as its prompt on its first ticket (seats as drawn: no dealing of jobs)."""
    params = {**spec.environment.params, "deal_roles": False}
    env = make_env("customer_service", params, **team_kwargs("customer_service", spec.agents))
    observations, _ = env.reset(seed=0)
    return {agent: str(obs["prompt"]) for agent, obs in observations.items()}


def test_shipped_template_prompts_are_byte_identical_loaded_defaulted_and_observed():
    doc = _template()
    written = [a["prompt"] for a in doc["agents"]]
    assert hashlib.sha256("\n".join(written).encode()).hexdigest() == SHIPPED_PROMPTS_SHA256
    assert written == [ROLES[a["role"]].default_prompt for a in doc["agents"]]
    spec = load_spec(doc)
    assert [a.prompt for a in spec.agents] == written
    # left out, the shipped catalogue's agents get their role's prompt exactly (nothing derived)
    bare = _template()
    for agent in bare["agents"]:
        del agent["prompt"]
    assert [a.prompt for a in load_spec(bare).agents] == written
    assert filled_prompts(bare) == dict(zip([a["id"] for a in bare["agents"]], written, strict=True))
    # what the trained policy reads: each agent observes its prompt, the same bytes
    assert _observed_prompts(spec) == {a["id"]: a["prompt"] for a in doc["agents"]}
    assert not [w for w in spec_warnings(doc) if w.path.endswith(".prompt")]


def test_a_prompt_left_out_follows_the_intents_the_specialist_owns(bike_shop):
    doc = _bike_shop(
        shopping_guide=["rental"], logistics=["repair_booking", "rental"], dispute_mediator=["rental"]
    )
    for agent in doc["agents"][:2]:
        del agent["prompt"]
    spec = load_spec(doc)
    prompts = {a.id: a.prompt for a in spec.agents}
    assert prompts["shopping_guide"] == (
        "You answer the customer's requests about rental (wants to rent a bike for a day or a week). "
        "Leave other requests to your teammates."
    )
    # catalogue order, names in words, descriptions as written
    assert prompts["logistics"].startswith(
        "You answer the customer's requests about rental (wants to rent a bike for a day or a week) and "
        "repair booking (books a repair of their bike)."
    )
    # a prompt the user kept stays as written; the reviewer keeps its role's
    assert prompts["dispute_mediator"] == ROLES["dispute_mediator"].default_prompt
    assert prompts["quality_supervisor"] == ROLES["quality_supervisor"].default_prompt
    # the designer is shown the same text the loader gives, for the agents that name no prompt
    assert filled_prompts(doc) == {k: prompts[k] for k in ("shopping_guide", "logistics")}
    assert _observed_prompts(spec)["logistics"] == prompts["logistics"]


def test_a_team_still_being_drawn_shows_its_derived_prompts(bike_shop):
    """Before every intent has an owner (the spec is invalid) and with an intent still lacking its
    description, the designer is shown the prompt each specialist will be given."""
    doc = _bike_shop(shopping_guide=["rental"])
    doc["environment"]["params"]["intents"].append({"name": "fitting"})
    del doc["agents"][0]["prompt"]
    del doc["agents"][2]["prompt"]  # owns the shipped return_refund…: nothing of this catalogue yet
    shown = filled_prompts(doc)
    assert shown["shopping_guide"].startswith("You answer the customer's requests about rental (")
    assert shown["dispute_mediator"] == ROLES["dispute_mediator"].default_prompt


def test_an_edited_prompt_is_never_rewritten_but_flagged_when_it_misses_an_owned_intent(bike_shop):
    doc = _bike_shop(
        shopping_guide=["rental"], logistics=["repair_booking"], dispute_mediator=["rental", "repair_booking"]
    )
    doc["agents"][0]["prompt"] = "You rent out bikes and explain our rental terms."
    doc["agents"][2]["prompt"] = "You handle rentals."
    spec = load_spec(doc)
    assert spec.agents[0].prompt == "You rent out bikes and explain our rental terms."
    assert spec.agents[2].prompt == "You handle rentals."
    flagged = {w.path: w.message for w in spec_warnings(doc) if w.path.endswith(".prompt")}
    assert "$.agents[0].prompt" not in flagged  # it speaks of rental
    assert flagged["$.agents[2].prompt"].startswith(
        "agent dispute_mediator's prompt does not speak of repair booking, which it owns: it may be out of date"
    )
    # the template's words, kept, speak of none of what logistics now owns
    assert flagged["$.agents[1].prompt"].startswith(
        "agent logistics's prompt is its role's default and speaks of none of the intents it owns (repair booking)"
    )
    assert "$.agents[3].prompt" not in flagged  # the reviewer owns nothing


def test_the_shipped_catalogue_plus_one_intent_flags_no_template_prompt():
    """Adding one intent to the shipped eight (a catalogue of one's own) and giving it to the mediator: the
    other specialists' template prompts still speak of their work (logistics' names no address change, yet
    it is the role's own text), so nothing is flagged; the mediator's prompt left out names all four."""
    doc = _template()
    shipped = ["product_question", "recommendation", "order_tracking", "delivery_delay"]
    shipped += ["address_change", "return_refund", "damaged_item", "complaint"]
    doc["environment"]["params"]["intents"] = [{"name": n} for n in shipped]
    doc["environment"]["params"]["intents"].append(
        {"name": "warranty_claim", "description": "A warranty claim."}
    )
    mediator = doc["agents"][2]
    mediator["intents"].append("warranty_claim")
    del mediator["prompt"]
    assert not [w for w in spec_warnings(doc) if w.path.endswith(".prompt")]
    assert filled_prompts(doc)["dispute_mediator"].startswith(
        "You answer the customer's requests about return refund (",
    )
    assert "complaint (" in filled_prompts(doc)["dispute_mediator"]
    assert "and warranty claim (a warranty claim)." in filled_prompts(doc)["dispute_mediator"]


def test_the_sentence_pattern_is_generic():
    assert intents_prompt([("a_b", ""), ("c", "Does C."), ("d", "VAT questions")]) == (
        "You answer the customer's requests about a b, c (does C) and d (VAT questions). "
        "Leave other requests to your teammates."
    )
    shipped = {"intents": []}
    assert owned_intents_prompt({"role": "logistics", "intents": ["order_tracking"]}, shipped) is None
    assert owned_intents_prompt({"role": "quality_supervisor"}, {"intents": BIKE_SHOP}) is None
