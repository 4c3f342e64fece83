"""Team spec: schema, every-error validation with JSON paths, hostile input, presets, round trip."""

from __future__ import annotations

import copy
import json
import math
import pickle
from pathlib import Path

import pytest

from agents.envs import REGISTRY, register_env
from agents.spec import (
    LIMITS,
    REWARD_PRESETS,
    REWARD_TERMS,
    ROLES,
    SPEC_VERSION,
    FrozenDict,
    SpecError,
    SpecValidationError,
    TeamSpec,
    load_spec,
    spec_warnings,
    validate_spec,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def number_guess_doc() -> dict:
    """A valid spec for the number_guess environment (4 bit clues, 2 distractors)."""
    return {
        "spec_version": 1,
        "name": "Number guessing",
        "agents": [{"id": f"clue_{i}", "role": "informant"} for i in range(4)]
        + [{"id": f"distractor_{i}", "role": "distractor"} for i in range(2)]
        + [
            {
                "id": "guesser",
                "role": "guesser",
                "prompt": "You combine the clues you receive and name the number.",
            }
        ],
        "edges": [
            {"source": a, "target": "guesser"}
            for a in ["clue_0", "clue_1", "clue_2", "clue_3", "distractor_0", "distractor_1"]
        ],
        "environment": {
            "name": "number_guess",
            "params": {"n": 16, "informative": 4, "distractors": 2, "clue_kinds": ["bits"]},
        },
    }


def small_doc() -> dict:
    """A valid design-only three-agent spec."""
    return {
        "name": "Writing",
        "agents": [
            {"id": "planner", "role": "planner"},
            {"id": "writer", "role": "writer", "lora": {"r": 8, "alpha": 16}},
            {"id": "polisher", "role": "polisher", "update_period": 2},
        ],
        "edges": [
            {"source": "planner", "target": "writer", "kind": "dependency"},
            {"source": "writer", "target": "polisher", "kind": "dependency"},
            {"source": "polisher", "target": "planner"},
        ],
    }


def paths(errors: list[SpecError]) -> list[str]:
    return [e.path for e in errors]


def test_valid_specs_have_no_errors_and_defaults_are_filled():
    assert validate_spec(number_guess_doc()) == []
    spec = load_spec(small_doc())
    assert spec.spec_version == SPEC_VERSION
    assert spec.agents[1].lora.r == 8 and spec.agents[1].lora.alpha == 16.0
    assert spec.agents[0].lora.r == 4 and spec.agents[0].lora.target_modules is None
    assert spec.agents[0].prompt == ROLES["planner"].default_prompt  # missing prompt -> role default
    assert spec.agents[2].update_period == 2
    assert spec.training.algorithm == "reinforce_comm" and spec.training.lr == 0.003
    assert [p.name for p in spec.evolution.phases] == ["exploration", "exploitation", "transfer"]
    assert spec.reward.terms[0].term == "task" and spec.reward.terms[0].weight("transfer") == 1.0
    assert spec.environment.name is None
    assert spec.agent("writer").role == "writer"
    assert [e.kind for e in spec.dependency_edges] == ["dependency", "dependency"]


def test_round_trip_to_dict_and_pickle():
    spec = load_spec(number_guess_doc())
    doc = spec.to_dict()
    assert list(doc)[:3] == ["spec_version", "name", "description"]
    json.dumps(doc)  # plain JSON
    again = load_spec(doc)
    assert again == spec and again.to_dict() == doc
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert isinstance(hash(spec), int)
    with pytest.raises(TypeError):
        spec.environment.params["n"] = 3  # deeply read-only
    assert spec.environment.params["clue_kinds"] == ("bits",)


def test_load_spec_from_file_and_bad_files(tmp_path):
    path = tmp_path / "team.json"
    path.write_text(json.dumps(number_guess_doc()))
    assert load_spec(path).name == "Number guessing"
    assert load_spec(str(path)).agent_ids[-1] == "guesser"
    with pytest.raises(SpecValidationError, match="cannot read spec file"):
        load_spec(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n "agents": [}')
    with pytest.raises(SpecValidationError, match="not valid JSON.*line 2"):
        load_spec(bad)


def test_every_error_is_reported_with_its_path():
    doc = small_doc()
    doc["agents"][0]["lora"] = {"r": 0, "dropout": 1.5, "bogus": 1}
    doc["agents"][1]["role"] = "wizard"
    doc["agents"][2]["id"] = "Polisher!"
    doc["agents"][2]["prompt"] = "   "
    doc["training"] = {"lr": -1, "device": "tpu", "batch_size": True}
    doc["extra"] = 1
    errors = validate_spec(doc)
    got = set(paths(errors))
    for expected in [
        "$.agents[0].lora.r",
        "$.agents[0].lora.dropout",
        "$.agents[0].lora.bogus",
        "$.agents[1].role",
        "$.agents[2].id",
        "$.agents[2].prompt",
        "$.training.lr",
        "$.training.device",
        "$.training.batch_size",
        "$.extra",
    ]:
        assert expected in got, (expected, errors)
    with pytest.raises(SpecValidationError) as info:
        load_spec(doc)
    assert isinstance(info.value, ValueError)
    assert len(info.value.errors) == len(errors)
    assert "\n" not in str(info.value) and "more errors" in str(info.value)


def test_graph_checks_duplicates_dangling_self_loops_and_cycles():
    doc = small_doc()
    doc["agents"].append({"id": "writer", "role": "reviewer"})
    doc["edges"] += [
        {"source": "ghost", "target": "writer"},
        {"source": "writer", "target": "writer"},
        {"source": "polisher", "target": "planner", "kind": "dependency"},  # closes planner->writer->polisher
        {"source": "polisher", "target": "planner"},  # duplicate communication edge
    ]
    errors = validate_spec(doc)
    by_path = {e.path: e.message for e in errors}
    assert "duplicate agent id" in by_path["$.agents[3].id"]
    assert "unknown agent" in by_path["$.edges[3].source"]
    assert "self-loop" in by_path["$.edges[4]"]
    assert "planner -> writer -> polisher -> planner" in by_path["$.edges[5]"]
    assert "duplicate communication edge" in by_path["$.edges[6]"]


def test_communication_mask_follows_edges_or_is_full():
    spec = load_spec(small_doc())
    mask = spec.communication_mask()
    assert mask[0][2] is True and mask[2][0] is False  # polisher -> planner only
    doc = small_doc()
    doc["edges"] = []
    full = load_spec(doc).communication_mask()
    assert full == [[i != j for j in range(3)] for i in range(3)]


def test_reward_checks_and_presets():
    doc = small_doc()
    doc["reward"] = {
        "terms": [
            {"term": "task", "weights": {"exploration": math.inf}},
            {"term": "task", "weights": {"exploitation": 11}},
            {"term": "karma", "weights": {"transfer": 1}},
            {"term": "novelty", "weights": {"party": 1}},
        ]
    }
    by_path = {e.path: e.message for e in validate_spec(doc)}
    assert "finite" in by_path["$.reward.terms[0].weights.exploration"]
    assert "listed twice" in by_path["$.reward.terms[1].term"]
    assert "[-10, 10]" in by_path["$.reward.terms[1].weights.exploitation"]
    assert "karma" in by_path["$.reward.terms[2].term"]
    assert "$.reward.terms[3].weights.party" in by_path

    doc["reward"] = {"preset": "phase_rewards"}
    spec = load_spec(doc)
    assert spec.reward.weights_for("exploration") == {"entropy_bonus": 0.7, "task": 0.3}
    assert spec.reward.weights_for("exploitation") == {"task": 0.9, "coherence_penalty": -0.1}
    assert spec.reward.weights_for("transfer") == {"transfer_score": 0.5, "domain_performance": 0.5}

    doc["reward"] = {
        "preset": "hierarchical",
        "terms": [{"term": "communication_cost", "weights": {"exploitation": -0.5}}],
    }
    spec = load_spec(doc)
    assert spec.reward.weights_for("exploitation") == {
        "task": 1.0,
        "coherence_penalty": -0.3,
        "collaboration_bonus": 0.2,
        "communication_cost": -0.5,
    }
    assert load_spec(spec.to_dict()) == spec
    assert set(REWARD_PRESETS) == {"phase_rewards", "hierarchical"}
    assert {"task", "entropy_bonus", "human_feedback", "domain_performance"} <= set(REWARD_TERMS)


def test_curriculum_needs_an_environment_with_difficulty_levels():
    doc = number_guess_doc()
    doc["curriculum"] = {"enabled": True}
    assert "no difficulty levels" in {e.path: e.message for e in validate_spec(doc)}["$.curriculum.enabled"]
    service = json.loads((EXAMPLES / "customer_service.json").read_text())
    assert service["curriculum"]["enabled"] and validate_spec(service) == []
    service["curriculum"]["max_level"] = 7
    assert "at most 3" in {e.path: e.message for e in validate_spec(service)}["$.curriculum.max_level"]
    service["curriculum"]["enabled"] = False  # a disabled curriculum is never checked against the env
    assert validate_spec(service) == []


def test_self_imitation_is_a_ppo_setting():
    service = json.loads((EXAMPLES / "customer_service.json").read_text())
    service["training"]["self_imitation"] = 0.5
    assert load_spec(service).training.self_imitation == 0.5
    service["training"]["self_imitation"] = -1
    assert "$.training.self_imitation" in paths(validate_spec(service))
    doc = number_guess_doc()  # reinforce_comm by default
    doc["training"] = {"self_imitation": 1.0}
    assert "set algorithm to mappo or ippo" in validate_spec(doc)[0].message


def test_policy_sharing_credit_and_teacher_are_ppo_settings():
    service = json.loads((EXAMPLES / "customer_service.json").read_text())
    service["training"].update(
        policy_sharing="independent", counterfactual=True, teacher="expert", teacher_coef=0.5
    )
    training = load_spec(service).training
    assert (training.policy_sharing, training.counterfactual, training.teacher, training.teacher_coef) == (
        "independent",
        True,
        "expert",
        0.5,
    )
    service["training"].update(
        policy_sharing="pooled", counterfactual="yes", teacher="oracle", teacher_coef=-1
    )
    assert {
        "$.training.policy_sharing",
        "$.training.counterfactual",
        "$.training.teacher",
        "$.training.teacher_coef",
    } <= set(paths(validate_spec(service)))
    service["training"].update(
        algorithm="ippo", policy_sharing="shared", counterfactual=True, teacher="rules", teacher_coef=1
    )
    errors = validate_spec(service)
    assert [e.path for e in errors] == ["$.training.counterfactual"]  # IPPO has no centralised critic
    assert "set algorithm to mappo" in errors[0].message
    # a teacher may fade out; a fade without a teacher, or a negative one, is an error at its path
    service["training"].update(counterfactual=False, teacher_fade_episodes=500)
    assert not validate_spec(service) and load_spec(service).training.teacher_fade_episodes == 500
    for teacher, fade in (("none", 500), ("rules", -1)):
        service["training"].update(teacher=teacher, teacher_fade_episodes=fade)
        assert paths(validate_spec(service)) == ["$.training.teacher_fade_episodes"], teacher


def test_ppo_settings_under_reinforce_comm_and_teachers_the_environment_lacks():
    doc = number_guess_doc()  # reinforce_comm by default
    doc["training"] = {"policy_sharing": "independent", "teacher": "rules", "counterfactual": True}
    assert set(paths(validate_spec(doc))) >= {
        "$.training.policy_sharing",
        "$.training.teacher",
        "$.training.counterfactual",
    }
    doc["training"] = {"algorithm": "mappo", "teacher": "rules"}
    errors = validate_spec(doc)
    assert [e.path for e in errors] == ["$.training.teacher"]
    assert "ships no rule-scripted team" in errors[0].message and "customer_service" in errors[0].message
    doc["training"] = {"algorithm": "mappo", "teacher": "expert"}
    assert "needs labelled tickets" in validate_spec(doc)[0].message


def test_evolution_curriculum_and_breaker_ranges():
    doc = small_doc()
    doc["evolution"] = {
        "phases": [{"name": "exploitation", "threshold": 0.9}, {"name": "exploration", "threshold": 0.3}],
        "plateau": {"cycles": 0},
    }
    doc["curriculum"] = {"upper": 0.3, "lower": 0.5, "min_level": 4, "max_level": 2}
    doc["circuit_breaker"] = {"confidence_threshold": 2, "consecutive_low": 0}
    doc["communication"] = {"beta_start": 0.1, "beta_end": 0.5, "protocol": "pigeon"}
    by_path = {e.path: e.message for e in validate_spec(doc)}
    assert "cannot follow" in by_path["$.evolution.phases[1].name"]
    assert "must not decrease" in by_path["$.evolution.phases[1].threshold"]
    assert "$.evolution.plateau.cycles" in by_path
    assert "below upper" in by_path["$.curriculum.lower"]
    assert "$.curriculum.min_level" in by_path
    assert (
        "$.circuit_breaker.confidence_threshold" in by_path and "$.circuit_breaker.consecutive_low" in by_path
    )
    assert "beta_end" in by_path["$.communication.beta_end"]
    assert "$.communication.protocol" in by_path


def test_reward_weights_must_name_declared_phases():
    doc = small_doc()
    doc["evolution"] = {"phases": [{"name": "exploitation", "threshold": 0.9}]}
    doc["reward"] = {"terms": [{"term": "task", "weights": {"exploitation": 1, "transfer": 1}}]}
    assert paths(validate_spec(doc)) == ["$.reward.terms[0].weights.transfer"]
    doc["reward"] = {"preset": "phase_rewards"}
    assert paths(validate_spec(doc)) == ["$.reward.preset"]


def test_fallback_rules_reference_agents():
    doc = small_doc()
    doc["fallback"] = {
        "kind": "keyword_router",
        "rules": [{"keywords": ["refund", ""], "route_to": "nobody"}],
    }
    assert set(paths(validate_spec(doc))) == {
        "$.fallback.rules[0].keywords[1]",
        "$.fallback.rules[0].route_to",
    }
    doc["fallback"] = {"kind": "keyword_router", "rules": []}
    assert paths(validate_spec(doc)) == ["$.fallback.rules"]


def test_environment_name_params_and_agents_are_checked():
    doc = number_guess_doc()
    doc["environment"]["params"] = {"n": 15, "informative": 4, "colour": "red"}
    by_path = {e.path: e.message for e in validate_spec(doc)}
    assert "2**informative = 16" in by_path["$.environment.params.n"]
    assert "$.environment.params.colour" in by_path

    doc = number_guess_doc()
    doc["environment"]["params"]["distractors"] = 3
    (err,) = validate_spec(doc)  # the canvas counts the distractors (issue 20): the stated count must agree
    assert err.path == "$.environment.params.distractors" and "the canvas has 2 distractors" in err.message

    doc["environment"] = {"name": "chess"}
    assert "number_guess" in validate_spec(doc)[0].message

    design_only = small_doc()
    assert validate_spec(design_only) == []
    assert paths(validate_spec(design_only, require_environment=True)) == ["$.environment.name"]
    with pytest.raises(SpecValidationError, match="design-only"):
        load_spec(design_only, require_environment=True)


def test_unimportable_environment_gives_a_clear_error_only_when_used():
    register_env("broken_env_for_test", "agents.envs.does_not_exist:Nope")
    try:
        doc = small_doc()
        doc["environment"] = {"name": "broken_env_for_test"}
        (err,) = validate_spec(doc)
        assert err.path == "$.environment.name" and "could not be imported" in err.message
        assert validate_spec(number_guess_doc()) == []  # other specs are unaffected
    finally:
        del REGISTRY["broken_env_for_test"]


@pytest.mark.parametrize(
    "hostile",
    [
        None,
        42,
        "spec",
        [],
        {"agents": "many"},
        {"name": "x", "agents": [None, 3, [], {"id": None, "role": 7, "lora": "big"}]},
        {"name": "x", "agents": [{"id": "a", "role": "guesser"}], "edges": [{"source": 1, "target": {}}]},
        {
            "name": "x",
            "agents": [{"id": "a", "role": "guesser"}],
            "environment": {"name": "number_guess", "params": {"n": "16", "clue_kinds": [None, {}]}},
        },
        {
            "name": "x",
            "agents": [{"id": "a", "role": "guesser"}],
            "environment": {"name": "number_guess", "params": []},
        },
        {1: "int key", "name": "x", "agents": []},
        {"name": "x", "agents": [{"id": "a", "role": "guesser", "lora": {"r": 10**400}}]},
        {"name": "x", "agents": [{"id": "a", "role": "guesser", "lora": {"alpha": 1e308 * 10}}]},
        {"name": "x", "agents": [{"id": "a", "role": "guesser", "prompt": object()}]},
        {
            "name": "x",
            "agents": [{"id": "a", "role": "guesser"}],
            "reward": {"terms": [{"term": "task", "weights": []}]},
        },
        {
            "name": "x",
            "agents": [{"id": "a", "role": "guesser"}],
            "evolution": {"phases": [{"name": [], "threshold": "high"}]},
        },
    ],
)
def test_hostile_documents_give_errors_never_exceptions(hostile):
    errors = validate_spec(hostile)
    assert errors and all(isinstance(e, SpecError) and e.path.startswith("$") for e in errors)
    with pytest.raises(SpecValidationError):
        load_spec(hostile) if isinstance(hostile, dict) else load_spec({"wrapped": hostile})


def test_size_guards_deep_nesting_cycles_and_caps():
    deep: dict = {}
    cur = deep
    for _ in range(100_000):  # deeper than Python's recursion limit
        cur["a"] = {}
        cur = cur["a"]
    assert "nested deeper" in validate_spec(deep)[0].message

    loop: list = []
    loop.append(loop)
    assert "nested deeper" in validate_spec({"name": "x", "agents": loop})[0].message

    huge = small_doc()
    huge["description"] = "x" * (LIMITS["document_bytes"] + 10)
    assert "limit is 1,000,000" in validate_spec(huge)[0].message

    many = {"name": "x", "agents": [{"id": f"a{i}", "role": "writer"} for i in range(65)]}
    assert paths(validate_spec(many)) == ["$.agents"]
    long_prompt = small_doc()
    long_prompt["agents"][0]["prompt"] = "p" * 8001
    assert paths(validate_spec(long_prompt)) == ["$.agents[0].prompt"]
    edges = small_doc()
    edges["edges"] = [{"source": "planner", "target": "writer"}] * 1001
    assert "limit is 1,000" in validate_spec(edges)[0].message


def test_custom_role_needs_a_prompt_and_known_roles_have_defaults():
    doc = small_doc()
    doc["agents"][0] = {"id": "planner", "role": "custom"}
    assert paths(validate_spec(doc)) == ["$.agents[0].prompt"]
    required = {
        "informant",
        "distractor",
        "guesser",
        "shopping_guide",
        "logistics",
        "dispute_mediator",
        "quality_supervisor",
        "researcher",
        "analyst",
        "writer",
        "reviewer",
        "planner",
        "polisher",
        "architect",
        "implementer",
        "tester",
        "code_reviewer",
        "custom",
    }
    assert set(ROLES) == required
    for name, info in ROLES.items():
        assert info.description
        assert (info.default_prompt == "") == (name == "custom")


def test_warnings_are_separate_from_errors():
    doc = number_guess_doc()  # 7 agents, but only the guesser decides: informants and distractors share
    warnings = spec_warnings(doc)
    assert not any(w.path == "$.agents" for w in warnings)
    assert validate_spec(doc) == []
    small = small_doc()
    assert not any(w.path == "$.agents" for w in spec_warnings(small))
    assert any(w.path == "$.environment.name" for w in spec_warnings(small))
    # Invalid documents still get the raw-form advice, never an exception.
    bad = {"name": 3, "agents": [{"id": f"a{i}"} for i in range(6)]}
    assert [w.path for w in spec_warnings(bad)] == ["$.agents"]
    assert (
        "6 agents make decisions" in spec_warnings(bad)[0].message and "2–5" in spec_warnings(bad)[0].message
    )
    assert spec_warnings(None) == []
    assert spec_warnings(load_spec(doc)) == warnings


def test_spec_values_are_frozen_dataclasses():
    spec = load_spec(small_doc())
    with pytest.raises(AttributeError):
        spec.name = "other"  # type: ignore[misc]
    assert isinstance(spec, TeamSpec)
    assert isinstance(spec.reward.terms[0].weights, FrozenDict)
    copy.deepcopy(spec)


def test_error_flood_is_capped_with_a_count():
    doc = small_doc()
    for i in range(5000):
        doc[f"junk_{i}"] = i
    errors = validate_spec(doc)
    assert len(errors) == LIMITS["errors"] + 1
    assert errors[-1].path == "$" and "4,800 more errors" in errors[-1].message


def test_command_line_validates_files_with_advice(tmp_path, capsys):
    from training.cli import main

    good = tmp_path / "good.json"
    good.write_text(json.dumps(number_guess_doc()))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "agents": [{"id": "a", "role": "oracle"}]}))
    assert main(["validate", str(good), "--advice"]) == 0
    out = capsys.readouterr().out
    assert "good.json: valid" in out and "warning: $." in out and "advice: marl" in out
    assert main(["validate", str(bad)]) == 1
    assert "$.agents[0].role" in capsys.readouterr().out


def test_catalog_lists_what_the_designer_offers():
    from agents.spec import spec_catalog

    cat = spec_catalog()
    json.dumps(cat)
    assert {r["name"] for r in cat["roles"]} == set(ROLES)
    assert {t["name"] for t in cat["reward_terms"]} == set(REWARD_TERMS)
    assert cat["reward_presets"]["hierarchical"]["coherence_penalty"]["exploitation"] == -0.3
    assert "number_guess" in cat["environments"] and cat["limits"]["agents"] == 64
    assert cat["defaults"]["training"]["algorithm"] == "reinforce_comm"
    assert cat["defaults"]["communication"]["d_k"] == 32
