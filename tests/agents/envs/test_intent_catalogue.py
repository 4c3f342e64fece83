"""A routing team over a catalogue of its own: IT-helpdesk intents declared in the spec, tickets from a
dataset named in the datasets directory (no code knows the domain)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pettingzoo.test import parallel_api_test

from agents import places
from agents.envs import make_env, team_kwargs
from agents.envs.scripted import scripted_team

HELPDESK = [
    {"name": "password_reset", "description": "Locked out of an account, forgot or must change a password.",
     "keywords": ["password", "locked out"]},
    {"name": "vpn_access", "description": "Cannot connect to the VPN or remote network from home.",
     "keywords": ["vpn"]},
    {"name": "hardware_fault", "description": "A laptop, screen, keyboard or printer that is broken.",
     "keywords": ["broken", "printer"]},
    {"name": "software_install", "description": "Asks for an application or licence to be installed.",
     "keywords": ["install", "licence"]},
]  # fmt: skip
AGENTS = [
    {"id": "accounts", "role": "custom", "intents": ["password_reset", "vpn_access"], "prompt": "Accounts and access."},
    {"id": "desk", "role": "custom", "intents": ["hardware_fault", "software_install"], "prompt": "Devices and apps."},
    {"id": "lead", "role": "reviewer", "intents": [], "prompt": "Approve complete answers."},
]  # fmt: skip
TEXTS = {
    "password_reset": ["I forgot my password again", "locked out of my account after the holiday",
                       "need to reset my login password", "my password expired this morning"],
    "vpn_access": ["the vpn keeps dropping at home", "cannot connect to the vpn since the update",
                   "remote network access is refused", "vpn says my certificate is invalid"],
    "hardware_fault": ["my laptop screen is broken", "the printer on floor 2 jams every page",
                       "keyboard stopped working", "my monitor flickers and went black"],
    "software_install": ["please install photoshop for me", "I need a licence for visio",
                         "can you install the new teams client", "need python installed on my machine"],
}  # fmt: skip


def helpdesk_rows() -> list[dict]:
    """~40 labelled tickets: each text alone, and pairs of two intents."""
    rows = [{"text": t, "intents": [i]} for i, texts in TEXTS.items() for t in texts]
    names = list(TEXTS)
    for k in range(len(names)):
        a, b = names[k], names[(k + 1) % len(names)]
        for n in range(3):
            rows.append({"text": f"{TEXTS[a][n]} and also {TEXTS[b][n + 1].lower()}", "intents": [a, b]})
    return rows


@pytest.fixture
def helpdesk_dataset(tmp_path: Path):
    """The rows as dataset ``helpdesk`` (and its dev split) in a temporary datasets directory."""
    folder = tmp_path / "customer_service"
    folder.mkdir()
    lines = "\n".join(json.dumps(r) for r in helpdesk_rows()) + "\n"
    (folder / "helpdesk.jsonl").write_text(lines)
    (folder / "helpdesk.validation.jsonl").write_text(lines)
    saved = places.places()
    places.configure(None, None, None, tmp_path)
    yield "helpdesk"
    places.configure(saved.models_dir, saved.tickets_dir, saved.runs_dir, saved.datasets_dir)


def helpdesk_env(dataset: str, **params):
    params = {"tickets": dataset, "intents": HELPDESK, "mask_invalid": True, **params}
    return make_env("customer_service", params, **team_kwargs("customer_service", AGENTS))


def test_the_environment_plays_a_catalogue_of_its_own(helpdesk_dataset):
    env = helpdesk_env(helpdesk_dataset)
    assert env.catalogue.names == tuple(TEXTS) and len(env.tickets) == len(helpdesk_rows())
    assert env.action_names("accounts") == ("pass", "answer_password_reset", "answer_vpn_access")
    parallel_api_test(env, num_cycles=20)
    dealt = helpdesk_env(helpdesk_dataset, deal_roles=True)
    assert dealt.action_names("desk") == ("pass", *(f"answer_{i}" for i in TEXTS))
    parallel_api_test(dealt, num_cycles=20)


def test_the_rule_team_routes_by_the_catalogue(helpdesk_dataset):
    params = {"tickets": helpdesk_dataset, "intents": HELPDESK}
    env = helpdesk_env(helpdesk_dataset, shuffle=False)
    team = scripted_team("customer_service", params, team=AGENTS)
    exact = 0
    for index in range(len(env.tickets)):
        obs, _ = env.reset(seed=index, options={"ticket_index": index})
        while env.agents:
            obs, _, _, _, infos = env.step(team.actions(obs))
        exact += next(iter(infos.values()))["exact_match"]
    assert exact / len(env.tickets) >= 0.8  # rules from keywords and descriptions, tuned on the labels


def test_the_validator_names_what_a_catalogue_lacks(helpdesk_dataset):
    from agents.envs.customer_service.env import CustomerServiceEnv

    bad = CustomerServiceEnv.validate_params({"tickets": helpdesk_dataset, "intents": [{"name": "Bad Name"}]})
    assert {e.path for e in bad} >= {"$.intents[0].name", "$.intents[0].description"}
    narrower = CustomerServiceEnv.validate_params({"tickets": helpdesk_dataset, "intents": HELPDESK[:3]})
    assert any(e.path == "$.tickets" and "software_install" in e.message for e in narrower)
    orphan = CustomerServiceEnv.validate_team(AGENTS[1:], {"intents": HELPDESK})
    assert any("password_reset, vpn_access" in e.message for e in orphan)
    assert CustomerServiceEnv.validate_team(AGENTS, {"intents": HELPDESK}) == []


def helpdesk_spec(dataset: str, backbone_name: str) -> dict:
    """The shipped customer-service template with the helpdesk catalogue, team and dataset: data only."""
    doc = json.loads((Path(__file__).resolve().parents[3] / "examples" / "customer_service.json").read_text())
    template = doc["agents"][0]
    doc["agents"] = [{**template, **agent} for agent in AGENTS]
    doc["edges"] = [{"source": a, "target": "lead", "kind": "dependency"} for a in ("accounts", "desk")] + [
        {"source": "accounts", "target": "desk", "kind": "communication"}
    ]
    doc["fallback"] = {"kind": "keyword_router", "rules": [{"keywords": ["vpn"], "route_to": "accounts"}]}
    doc["backbone"] = {"model": backbone_name, "pooling": "mean", "max_length": 32}
    doc["environment"]["params"] |= {
        "tickets": dataset, "intents": HELPDESK, "reader_epochs": 5, "warm_start_episodes": 8, "warm_start_epochs": 1,
    }  # fmt: skip
    doc["training"] |= {
        "episodes": 4,
        "batch_size": 2,
        "eval_every": 2,
        "checkpoint_every": 2,
        "eval_episodes": 4,
    }
    doc["curriculum"]["enabled"] = False
    return doc


@pytest.mark.slow  # a couple of minutes on a shared CPU; the tests above cover the environment in seconds
def test_a_catalogue_of_its_own_trains_and_serves_through_the_product_path(helpdesk_dataset, tmp_path):
    from agents.backbone import Backbone
    from serving.model import resolve_checkpoint
    from serving.runtime import TeamRuntime
    from tests.fixtures.tiny_models import build_tiny_causal_lm
    from training.api import train

    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = helpdesk_spec(helpdesk_dataset, backbone.name)
    result = train(doc, tmp_path / "run", backbone=backbone)
    assert result.status == "succeeded", result
    checkpoint = resolve_checkpoint(tmp_path / "run")
    assert (checkpoint / "calibration.json").is_file()  # calibrated on the dataset's own dev split
    from agents.spec import load_spec

    with TeamRuntime.from_spec_checkpoint(load_spec(doc), checkpoint, backbone=backbone) as runtime:
        answer = runtime.run_ticket("the vpn refuses my password since this morning")
    assert answer["status"] != "error", answer
    assert set(answer["info"]["predicted_intents"]) <= set(TEXTS)
    assert {d["agent"] for d in answer["decisions"]} <= {"accounts", "desk", "lead"}


def test_the_validator_refuses_a_dataset_beyond_the_shipped_catalogue(helpdesk_dataset):
    """No catalogue declared (the shipped one): a dataset whose rows carry other intents is refused at
    $.tickets, every unknown intent named (the dataset's dev split too), before a run fails on its first
    row at training time."""
    from agents.envs.customer_service.env import CustomerServiceEnv

    found = CustomerServiceEnv.validate_params({"tickets": helpdesk_dataset})
    assert {e.path for e in found} == {"$.tickets"}, found
    assert [m.split(":")[0] for m in (e.message for e in found)] == [
        "customer_service/helpdesk.jsonl",
        "customer_service/helpdesk.validation.jsonl",
    ]
    assert all(f"{name} (10 rows)" in found[0].message for name in TEXTS), found[0].message
    assert "Declare each in intents" in found[0].message and "agents[].intents" in found[0].message
    assert CustomerServiceEnv.validate_params({"tickets": helpdesk_dataset, "intents": HELPDESK}) == []
