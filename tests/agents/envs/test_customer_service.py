"""Customer-service workflow: ticket data, the ParallelEnv, the rule baseline, domain randomisation."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from agents.envs import make_env
from agents.envs.customer_service.env import AGENTS, ROLE_ACTIONS, CustomerServiceEnv, evaluate
from agents.envs.customer_service.phrasings import INTENT_TEMPLATES
from agents.envs.customer_service.randomisation import DomainRandomisation
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam, exact_match
from agents.envs.customer_service.tickets import (
    DIFFICULTY_LEVELS,
    HIDDEN_TICKET,
    INTENT_ACTION,
    INTENT_ROLE,
    INTENTS,
    SUPERVISOR,
    Ticket,
    TicketFileError,
    _clause,
    generate_tickets,
    load_tickets,
)


def act(agent: str, name: str) -> int:
    return ROLE_ACTIONS[agent].index(name)


@pytest.fixture(scope="module")
def router() -> KeywordRouter:
    return KeywordRouter.tuned()


# ----------------------------------------------------------------------------------------- tickets


def test_shipped_dataset_sizes_mix_and_disjoint_splits():
    splits = {name: load_tickets(name) for name in ("train", "validation", "test", "holdout_styles")}
    assert sum(len(splits[s]) for s in ("train", "validation", "test")) >= 3000
    for name, tickets in splits.items():
        multi = sum(len(t.intents) > 1 for t in tickets) / len(tickets)
        assert 0.22 <= multi <= 0.38, name
        assert {i for t in tickets for i in t.intents} == set(INTENTS), name
    texts = [{t.text.lower() for t in splits[s]} for s in ("train", "validation", "test")]
    assert not texts[0] & texts[1] and not texts[0] & texts[2] and not texts[1] & texts[2]


def test_intent_catalogue_is_exactly_the_issue_list():
    assert set(INTENTS) == set(INTENT_ROLE) == set(INTENT_ACTION)
    assert {i for i, r in INTENT_ROLE.items() if r == "logistics"} == {
        "order_tracking",
        "delivery_delay",
        "address_change",
    }
    for agent in AGENTS[:-1]:
        owned = {INTENT_ACTION[i] for i, r in INTENT_ROLE.items() if r == agent}
        assert set(ROLE_ACTIONS[agent]) == {"pass", *owned}


def test_generator_is_reproducible_and_train_never_sees_eval_only_phrasing():
    assert generate_tickets(40, seed=5) == generate_tickets(40, seed=5)
    assert generate_tickets(40, seed=5) != generate_tickets(40, seed=6)
    eval_only = INTENT_TEMPLATES["delivery_delay"]["direct"][3]  # no slots, so the clause is verbatim
    rng = random.Random(0)
    train_clauses = {_clause("delivery_delay", ["direct"], rng, True) for _ in range(300)}
    all_clauses = {_clause("delivery_delay", ["direct"], rng, False) for _ in range(300)}
    assert eval_only not in train_clauses and eval_only in all_clauses


def test_ticket_file_errors_name_the_line(tmp_path):
    good = {"id": "a", "text": "where is my parcel", "intents": ["order_tracking"]}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(TicketFileError, match=r"t\.jsonl:2: not valid JSON"):
        load_tickets(path)
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "id": "b", "intents": ["refund"]}) + "\n")
    with pytest.raises(
        TicketFileError, match=r":3: unknown intent 'refund'; valid intents: product_question"
    ):
        load_tickets(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(TicketFileError, match="duplicate ticket id 'a'"):
        load_tickets(path)
    with pytest.raises(TicketFileError, match="not found"):
        load_tickets(tmp_path / "missing.jsonl")
    path.write_text(json.dumps({**good, "intents": ["complaint", "order_tracking"]}) + "\n")
    assert load_tickets(path) == [Ticket("a", "where is my parcel", ("order_tracking", "complaint"))]


# -------------------------------------------------------------------------------------------- env


def test_parallel_api_and_spaces():
    env = CustomerServiceEnv("validation")
    parallel_api_test(env, num_cycles=50)
    observations, _ = env.reset(seed=3)
    for agent, obs in observations.items():
        assert env.observation_space(agent).contains(obs)
    assert env.state_space.contains(env.state())
    env.step({agent: env.action_space(agent).sample() for agent in env.agents})
    assert env.state_space.contains(env.state())


def run_random(env, seed: int, episodes: int = 5):
    trajectory = []
    observations, _ = env.reset(seed=seed)
    for _ in range(episodes):
        while env.agents:
            actions = {agent: env.action_space(agent).sample() for agent in env.agents}
            observations, rewards, terms, truncs, infos = env.step(actions)
            trajectory.append(
                (
                    actions,
                    rewards,
                    terms,
                    {a: (o["ticket"], o["status"], o["draft"].tolist()) for a, o in observations.items()},
                    json.dumps(infos, sort_keys=True),
                )
            )
        observations, _ = env.reset()
    return trajectory


def test_same_seed_same_trajectory_with_and_without_randomisation():
    assert run_random(CustomerServiceEnv("test"), 11) == run_random(CustomerServiceEnv("test"), 11)
    assert run_random(CustomerServiceEnv("test"), 11) != run_random(CustomerServiceEnv("test"), 12)
    wrapped = [DomainRandomisation(CustomerServiceEnv("test"), 0.5, 0.3, 0.3, 0.2) for _ in range(2)]
    assert run_random(wrapped[0], 4) == run_random(wrapped[1], 4)


def test_perfect_team_gets_exact_match_and_bonus():
    ticket = Ticket("x", "my blender came broken, I want my money back", ("return_refund", "damaged_item"))
    env = CustomerServiceEnv([ticket], step_cost=0.05, message_cost=0.02, approve_bonus=1.0)
    env.reset(seed=0)
    _, rewards, *_ = env.step({"dispute_mediator": act("dispute_mediator", "handle_damage")})
    assert rewards["logistics"] == pytest.approx(1.0 - 0.05 - 0.02)
    _, rewards, *_ = env.step({"dispute_mediator": act("dispute_mediator", "process_refund")})
    _, rewards, terms, _, infos = env.step({"quality_supervisor": act("quality_supervisor", "approve")})
    assert rewards["shopping_guide"] == pytest.approx(1.0 - 0.05)
    assert all(terms.values()) and env.agents == []
    info = infos["quality_supervisor"]
    assert info["exact_match"] and info["steps"] == 3 and info["messages"] == 2
    assert info["intent_correct"] == {"return_refund": True, "damaged_item": True}


def test_wrong_action_send_back_and_bad_approval():
    ticket = Ticket("y", "where is my parcel", ("order_tracking",))
    env = CustomerServiceEnv([ticket])
    env.reset(seed=0)
    _, rewards, _, _, infos = env.step(
        {
            "logistics": act("logistics", "track_order"),
            "dispute_mediator": act("dispute_mediator", "process_refund"),
        }
    )
    assert rewards["logistics"] == pytest.approx(1.0 - 0.5 - 0.05 - 2 * 0.02)
    assert infos["logistics"]["fp"] == 1 and infos["logistics"]["wrong_actions"] == 1
    # the supervisor sends the draft back; logistics answers again in the same step
    obs, rewards, _, _, infos = env.step(
        {
            "quality_supervisor": act("quality_supervisor", "send_back"),
            "logistics": act("logistics", "track_order"),
        }
    )
    assert infos["logistics"]["predicted_intents"] == ["order_tracking"]
    assert obs["shopping_guide"]["draft"].tolist() == [int(i == "order_tracking") for i in INTENTS]
    assert "sent back 1x" in obs["shopping_guide"]["status"]
    _, _, _, _, infos = env.step({"quality_supervisor": act("quality_supervisor", "approve")})
    assert infos["logistics"]["exact_match"]

    env.reset(seed=0)
    _, rewards, terms, _, infos = env.step({"quality_supervisor": act("quality_supervisor", "approve")})
    assert all(terms.values()) and not infos["logistics"]["exact_match"]
    assert rewards["logistics"] == pytest.approx(-0.05 - 1.0)


def test_timeout_truncates_with_penalty():
    env = CustomerServiceEnv([Ticket("z", "is it waterproof", ("product_question",))], max_steps=3)
    env.reset(seed=0)
    for _ in range(3):
        _, rewards, terms, truncs, infos = env.step({})
    assert all(truncs.values()) and not any(terms.values()) and env.agents == []
    assert rewards["logistics"] == pytest.approx(-0.05 - 1.0) and not infos["logistics"]["exact_match"]


def test_evaluate_counts_wasted_messages_beyond_one_per_right_intent():
    ticket = Ticket("w", "where is my parcel", ("order_tracking",))
    script = [
        {
            "logistics": act("logistics", "track_order"),
            "dispute_mediator": act("dispute_mediator", "process_refund"),
        },
        {"quality_supervisor": act("quality_supervisor", "send_back")},
        {"logistics": act("logistics", "track_order")},
        {"quality_supervisor": act("quality_supervisor", "approve")},
    ]
    steps = iter(script)
    result = evaluate(CustomerServiceEnv([ticket]), lambda observations: next(steps))
    # 4 messages (two answers, a wrong refund, a send-back) for 1 intent handled right: 3 wasted
    assert result["messages_per_ticket"] == 4 and result["wasted_messages_per_ticket"] == 3
    assert result["exact_match"] == 1.0


def test_validate_params_and_registry():
    assert CustomerServiceEnv.validate_params({"tickets": "test", "max_steps": 8}) == []
    errors = CustomerServiceEnv.validate_params({"tickets": "nope.jsonl", "max_steps": 1, "colour": 2})
    paths = {e.path for e in errors}
    assert paths == {"$.tickets", "$.max_steps", "$.colour"}
    assert CustomerServiceEnv.validate_params({"step_cost": "x"})[0].path == "$.step_cost"
    env = make_env("customer_service", {"tickets": "validation", "max_steps": 5})
    assert isinstance(env, CustomerServiceEnv) and env.max_steps == 5 and len(env.tickets) == 600
    assert CustomerServiceEnv.expected_agents({}) == list(AGENTS)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"logistics: action 9 is out of range 0\.\.3"):
        env.step({"logistics": 9})


# ------------------------------------------------------------------------------------ rule baseline


def test_router_handles_negation_and_indirect_wording(router):
    assert router.predict("No need to refund, just tell me where it is.") == ("order_tracking",)
    assert router.predict("I don't want a refund or a return, my blender came all banged up") == (
        "damaged_item",
    )
    assert "delivery_delay" in router.predict("It's been two weeks and still nothing.")


def test_router_is_tuned_not_a_straw_man(router):
    train, test = load_tickets("train"), load_tickets("test")
    untuned = KeywordRouter()
    assert exact_match(router, train) > exact_match(untuned, train) + 0.05
    assert exact_match(router, train) >= 0.8
    assert 0.6 <= exact_match(router, test) < exact_match(router, train)


def test_scripted_team_in_env_matches_router_and_is_efficient(router):
    tickets = load_tickets("validation")[:150]
    env = CustomerServiceEnv(tickets)
    result = evaluate(env, ScriptedTeam(router).actions)
    assert result["exact_match"] == pytest.approx(exact_match(router, tickets))
    assert result["steps_per_ticket"] < 3.0 and result["messages_per_ticket"] < 2.0


def test_randomisation_perturbs_and_degrades_the_scripted_team(router):
    tickets = load_tickets("validation")[:100]
    team = ScriptedTeam(router)
    clean = evaluate(CustomerServiceEnv(tickets), team.actions)
    noisy_env = DomainRandomisation(CustomerServiceEnv(tickets), drop_context=0.5, latency=0.3, failure=0.3)
    parallel_api_test(noisy_env, num_cycles=20)
    observations, infos = noisy_env.reset(seed=1)
    events = []
    while noisy_env.agents:
        observations, _, _, _, infos = noisy_env.step(team.actions(observations))
        events += [info["randomisation"] for info in infos.values()]
    assert all("latency_ms" in e for e in events)
    noisy = evaluate(noisy_env.env, team.actions)  # same env underneath is unaffected
    assert noisy == clean
    exact, n = 0, len(tickets)
    for index in range(n):
        observations, _ = noisy_env.reset(seed=index, options={"ticket_index": index})
        while noisy_env.agents:
            observations, _, _, _, infos = noisy_env.step(team.actions(observations))
        exact += next(iter(infos.values()))["exact_match"]
    assert exact / n < clean["exact_match"] - 0.05
    assert np.isfinite(exact)


def test_draft_only_supervisor_sees_no_ticket_but_the_critic_state_does():
    env = CustomerServiceEnv("validation", supervisor_view="draft")
    parallel_api_test(env, num_cycles=20)
    observations, _ = env.reset(seed=2)
    assert observations[SUPERVISOR]["ticket"] == HIDDEN_TICKET
    assert all(observations[a]["ticket"] == env.ticket.text for a in AGENTS if a != SUPERVISOR)
    assert env.state()["ticket"] == env.ticket.text
    assert env.observation_space(SUPERVISOR).contains(observations[SUPERVISOR])
    wrapped = DomainRandomisation(CustomerServiceEnv("validation", supervisor_view="draft"), drop_context=1.0)
    assert wrapped.reset(seed=0)[0][SUPERVISOR]["ticket"] == HIDDEN_TICKET  # nothing there to cut
    error = CustomerServiceEnv.validate_params({"supervisor_view": "everything"})[0]
    assert error.path == "$.supervisor_view" and "ticket, draft" in error.message
    with pytest.raises(ValueError, match="supervisor_view"):
        CustomerServiceEnv("validation", supervisor_view="nothing")


def test_draft_only_rule_supervisor_approves_once_the_roles_stop(router):
    tickets = load_tickets("validation")[:150]
    team = ScriptedTeam(router)
    seen = evaluate(CustomerServiceEnv(tickets), team.actions)
    blind = evaluate(CustomerServiceEnv(tickets, supervisor_view="draft"), team.actions)
    # the same answers go out; waiting for an idle step costs exactly one step per ticket
    assert blind["exact_match"] == seen["exact_match"] and blind["intent_f1"] == seen["intent_f1"]
    assert blind["steps_per_ticket"] == pytest.approx(seen["steps_per_ticket"] + 1)


def test_action_mask_rules_out_empty_approvals_and_repeated_answers():
    env = CustomerServiceEnv("validation", mask_invalid=True)
    parallel_api_test(env, num_cycles=20)
    observations, _ = env.reset(seed=0, options={"ticket": Ticket("t", "where is it?", ("order_tracking",))})
    assert observations[SUPERVISOR]["action_mask"].tolist() == [1, 0, 0]  # nothing drafted: only continue
    assert observations["logistics"]["action_mask"].tolist() == [1, 1, 1, 1]
    observations, *_ = env.step({"logistics": act("logistics", "track_order")})
    assert observations[SUPERVISOR]["action_mask"].tolist() == [1, 1, 1]
    assert observations["logistics"]["action_mask"].tolist() == [1, 0, 1, 1]  # no second track_order
    assert all(env.observation_space(a).contains(o) for a, o in observations.items())
    assert "action_mask" not in CustomerServiceEnv("validation").reset(seed=0)[0][SUPERVISOR]
    assert CustomerServiceEnv.validate_params({"mask_invalid": "yes"})[0].path == "$.mask_invalid"


def test_difficulty_levels_follow_intents_and_shared_roles():
    def level(*intents: str) -> int:
        return Ticket("t", "text", intents).difficulty

    assert level("complaint") == 0
    assert level("order_tracking", "complaint") == 1
    assert level("order_tracking", "delivery_delay") == 2  # logistics must act twice
    assert level("product_question", "order_tracking", "complaint") == 2
    assert level("product_question", "order_tracking", "delivery_delay") == 3
    assert {t.difficulty for t in load_tickets("train")} == set(range(DIFFICULTY_LEVELS))


def test_reset_draws_tickets_no_harder_than_the_curriculum_level():
    env = CustomerServiceEnv("train")
    for level in range(DIFFICULTY_LEVELS):
        drawn = set()
        for seed in range(200):
            env.reset(seed=seed, options={"difficulty": level})
            drawn.add(env.ticket.difficulty)
        assert drawn == set(range(level + 1))  # every easier level still comes up, nothing harder
    hard_only = CustomerServiceEnv([Ticket("t", "late and I moved", ("delivery_delay", "address_change"))])
    hard_only.reset(seed=0, options={"difficulty": 0})  # the easiest there is when none is that easy
    assert hard_only.ticket.difficulty == 2
    with pytest.raises(ValueError, match="non-negative integer"):
        env.reset(seed=0, options={"difficulty": -1})


def test_pettingzoo_seed_test():
    parallel_seed_test(lambda: CustomerServiceEnv("validation"), num_cycles=40)


def test_fallback_rules_route_to_roles(router):
    from agents.envs.customer_service.rules import fallback_rules

    rules = fallback_rules(router, per_role=10)
    assert [rule["route_to"] for rule in rules] == ["shopping_guide", "logistics", "dispute_mediator"]
    assert all(
        len(rule["keywords"]) == 10 and all(isinstance(k, str) for k in rule["keywords"]) for rule in rules
    )


def test_shipped_files_are_exactly_what_the_generator_writes(tmp_path):
    from agents.envs.customer_service.tickets import DEFAULT_DATA_DIR, generate_dataset

    sizes = generate_dataset(tmp_path)
    assert sizes == {"train": 2400, "validation": 600, "test": 600, "holdout_styles": 400}
    for name in sizes:
        assert (tmp_path / f"{name}.jsonl").read_bytes() == (
            DEFAULT_DATA_DIR / f"{name}.jsonl"
        ).read_bytes(), name


def test_a_critic_state_without_labels_knows_only_what_the_agents_see():
    privileged, plain = (
        CustomerServiceEnv("validation"),
        CustomerServiceEnv("validation", privileged_state=False),
    )
    for env in (privileged, plain):
        env.reset(seed=4)
        env.step({a: 0 for a in AGENTS})
    labels = slice(8, 24)  # blocks: draft, correctly handled, true intents (8 each), then progress
    assert privileged.state()["vector"][labels].sum() >= 1  # the true intents are there
    assert not plain.state()["vector"][labels].any()
    assert np.array_equal(privileged.state()["vector"][24:], plain.state()["vector"][24:])
    assert plain.state_space.contains(plain.state())
    assert CustomerServiceEnv.validate_params({"privileged_state": "no"})[0].path == "$.privileged_state"


def test_delayed_reward_pays_the_same_return_at_the_last_step_only():
    def rewards(env) -> list[float]:
        env.reset(seed=2)
        rng = np.random.default_rng(0)
        paid = []
        while env.agents:
            actions = {a: int(rng.integers(len(ROLE_ACTIONS[a]))) for a in env.agents}
            paid.append(env.step(actions)[1]["logistics"])
        return paid

    for seed in range(5):
        dense = rewards(CustomerServiceEnv("validation", delayed_reward=False, max_steps=4 + seed))
        delayed = rewards(CustomerServiceEnv("validation", delayed_reward=True, max_steps=4 + seed))
        assert len(dense) == len(delayed)
        assert delayed[:-1] == [0.0] * (len(delayed) - 1)
        assert delayed[-1] == pytest.approx(sum(dense))
    assert any(r != 0 for r in dense[:-1])  # the dense env pays as it goes
    assert CustomerServiceEnv.validate_params({"delayed_reward": 1})[0].path == "$.delayed_reward"
