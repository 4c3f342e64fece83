"""Teacher–student augmentation: diff steps on the same task, and more useful samples with a teacher."""

import json
from pathlib import Path

import torch
from test_mappo import COORDINATION, MatrixGame, make_trainer

from agents.envs import make_env
from agents.envs.customer_service.env import ROLE_ACTIONS
from agents.envs.customer_service.rules import KeywordRouter
from agents.envs.customer_service.tickets import INTENT_ACTION, INTENT_ROLE
from agents.envs.customer_service.triage import EMPTY_QUEUE, triage
from agents.spec import load_spec
from training.mappo import MappoConfig, MappoTeam, MappoTrainer, config_from_spec
from training.teacher import PolicyTeacher, ScriptedTeacher, compare_trajectories, teacher_from_spec

torch.set_num_threads(1)


class Expert:
    """Knows the coordinated optimum of COORDINATION: both play 0."""

    def act(self, agent, observation):
        return 0


def test_compare_trajectories_returns_the_steps_where_actions_differ():
    env = MatrixGame(COORDINATION)
    diffs, t_info, s_info = compare_trajectories(
        env, teacher=lambda obs: {a: 0 for a in obs}, student=lambda obs: {"row": 1, "col": 0}, seed=3
    )
    assert [(d.step, d.agent, d.student_action, d.teacher_action) for d in diffs] == [(0, "row", 1, 0)]
    assert t_info["success"] and not s_info["success"]


def test_teachers_answer_per_agent():
    assert ScriptedTeacher(Expert()).act("row", None, {}) == 0
    assert PolicyTeacher(lambda obs: {a: 2 for a in obs}).act("col", [0, 1], {}) == 2


def test_teacher_samples_raise_the_useful_share_and_speed_learning():
    plain = make_trainer(COORDINATION, updates=3, lr=0.003)
    taught = MappoTrainer(
        MappoConfig(
            updates=3,
            episodes_per_update=32,
            epochs=4,
            minibatches=2,
            lr=0.003,
            eval_every=0,
            checkpoint_every=0,
            teacher_coef=1.0,
            seed=0,
        ),
        MappoTeam(
            lambda split: MatrixGame(COORDINATION),
            teacher=ScriptedTeacher(Expert()),
            success_fn=lambda info: info.get("success", False),
        ),
    )
    plain.train()
    taught.train()
    share_plain = sum(m["useful_share"] for m in plain.history) / 3
    share_taught = sum(m["useful_share"] for m in taught.history) / 3
    assert share_taught > share_plain + 0.1
    assert taught.history[-1]["teacher_samples"] < taught.history[0]["teacher_samples"]  # fewer corrections
    assert taught.evaluate(episodes=1)["success"] == 1.0


def test_a_team_spec_picks_sharing_credit_and_teacher():
    doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "customer_service.json").read_text())
    cfg = config_from_spec(load_spec(doc))
    assert (cfg.sharing, cfg.counterfactual, cfg.teacher_coef) == ("lora", False, 0.0)
    assert teacher_from_spec(load_spec(doc)) is None
    doc["training"].update(policy_sharing="shared", counterfactual=True, teacher="expert", teacher_coef=0.5)
    spec = load_spec(doc)
    cfg = config_from_spec(spec)
    assert (cfg.sharing, cfg.counterfactual, cfg.teacher_coef) == ("shared", True, 0.5)
    # the expert reads the training labels: it answers a training ticket's intents, then approves
    expert = teacher_from_spec(spec)
    env = make_env("customer_service", dict(doc["environment"].get("params", {})))
    obs, _ = env.reset(seed=3)
    ticket = env.unwrapped.ticket
    role = INTENT_ROLE[ticket.intents[0]]
    names = env.unwrapped.action_names(role)  # every intent's answer: the template deals roles
    assert names[expert(role, obs[role], {})] == INTENT_ACTION[ticket.intents[0]]
    doc["training"]["teacher"] = "rules"
    rules = teacher_from_spec(load_spec(doc))
    assert isinstance(rules.team.router, KeywordRouter)


class Contrarian:
    """Always plays 1: a teacher the student disagrees with once it has learned."""

    def act(self, agent, observation):
        return 1


def test_a_faded_teacher_stops_correcting_after_its_fade():
    def trainer(fade: int) -> MappoTrainer:
        cfg = MappoConfig(
            updates=4, episodes_per_update=16, epochs=1, minibatches=1, eval_every=0, checkpoint_every=0,
            teacher_coef=2.0, teacher_fade_updates=fade, seed=0,
        )  # fmt: skip
        return MappoTrainer(
            cfg, MappoTeam(lambda split: MatrixGame(COORDINATION), teacher=ScriptedTeacher(Contrarian()))
        )

    faded, constant = trainer(2), trainer(0)
    assert faded.teacher_weight() == 2.0
    faded.train()
    constant.train()
    # weight 2 → 1 over the first two updates, then 0: no more queries, no more corrections
    assert [m["teacher_samples"] > 0 for m in faded.history] == [True, True, False, False]
    assert all(m["teacher_samples"] > 0 for m in constant.history)
    assert faded.teacher_weight() == 0.0 and constant.teacher_weight() == 2.0


def test_the_spec_fades_a_teacher_over_episodes():
    doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "customer_service.json").read_text())
    doc["training"].update(teacher="expert", teacher_fade_episodes=640, batch_size=32)
    assert config_from_spec(load_spec(doc)).teacher_fade_updates == 20


def test_the_expert_teacher_reads_the_whole_ticket_when_its_agents_see_part_of_it():
    doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "customer_service.json").read_text())
    doc["environment"]["params"] = {"role_view": "triage", "supervisor_view": "draft"}
    doc["training"].update(teacher="expert", teacher_coef=1.0)
    expert = teacher_from_spec(load_spec(doc))
    env = make_env("customer_service", doc["environment"]["params"])
    misfiled = next(
        t
        for t in env.unwrapped.tickets
        if triage(t.text)["logistics"] == EMPTY_QUEUE and "delivery_delay" in t.intents
    )
    obs, infos = env.reset(seed=0, options={"ticket": misfiled})
    # logistics sees nothing of the delay (and the supervisor no ticket); the expert still knows
    assert obs["logistics"]["ticket"] == EMPTY_QUEUE
    assert expert("logistics", obs["logistics"], infos["logistics"]) in {
        ROLE_ACTIONS["logistics"].index(INTENT_ACTION[i])
        for i in misfiled.intents
        if INTENT_ROLE[i] == "logistics"
    }
    assert expert("logistics", obs["logistics"], {}) == 0  # without the ticket's id: its own empty queue
