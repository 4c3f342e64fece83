"""Which tickets decide a run's `best` checkpoint: the dev split, never the tickets it trains on."""

from __future__ import annotations

import json
from pathlib import Path

from agents.envs.customer_service.tickets import load_tickets
from agents.spec import load_spec
from training.mappo.from_spec import env_factory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def spec(**params):
    doc = json.loads((EXAMPLES / "customer_service.json").read_text())
    doc["environment"]["params"] |= params
    return load_spec(doc)


def ticket_ids(env) -> set[str]:
    return {t.id for t in env.unwrapped.tickets}


def test_a_run_on_the_shipped_training_tickets_validates_on_the_dev_tickets():
    make = env_factory(spec())
    train, validation = ticket_ids(make("train")), ticket_ids(make("validation"))
    assert train == {t.id for t in load_tickets("train")}
    assert validation == {t.id for t in load_tickets("validation")} and not train & validation
    # each seeded reset draws its own dev ticket (in file order every reseeded episode would replay the first)
    env = make("validation")
    drawn = {env.reset(seed=10_000 + k)[1][env.agents[0]]["ticket_id"] for k in range(20)}
    assert len(drawn) > 10


def test_a_run_on_other_tickets_validates_on_its_own_tickets():
    make = env_factory(spec(tickets="test"))  # a product manager's choice of file is kept as it is
    assert ticket_ids(make("validation")) == ticket_ids(make("train")) == {t.id for t in load_tickets("test")}


def test_an_environment_without_ticket_splits_is_the_same_for_every_split():
    doc = json.loads((EXAMPLES / "number_guessing.json").read_text())
    make = env_factory(load_spec(doc))
    assert type(make("validation")) is type(make("train"))
