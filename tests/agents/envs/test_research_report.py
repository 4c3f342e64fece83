"""Research-report workflow: corpus, judge, the ParallelEnv's phases and seed shaping rewards, scripted agents."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from agents.envs import make_env
from agents.envs.customer_service.randomisation import DomainRandomisation
from agents.envs.research_report.corpus import DOMAINS, CorpusError, load_corpus
from agents.envs.research_report.env import AGENTS, MAX_DOCS, ROLE_ACTIONS, ResearchReportEnv
from agents.envs.research_report.judge import compose, judge, report_issues
from agents.envs.research_report.scripted import ScriptedResearchTeam
from tests.fixtures.tiny_models import build_tiny_causal_lm


def act(agent: str, name: str) -> dict[str, int]:
    return {agent: ROLE_ACTIONS[agent].index(name)}


def slot_of(env: ResearchReportEnv, predicate) -> int:
    return next(i for i, doc in enumerate(env.results) if predicate(doc))


def run_scripted(env, topic=None, seed=0):
    team = ScriptedResearchTeam()
    observations, _ = env.reset(seed=seed, options={"topic": topic})
    totals = dict.fromkeys(AGENTS, 0.0)
    while env.agents:
        observations, rewards, _, _, infos = env.step(team.actions(observations))
        for agent, reward in rewards.items():
            totals[agent] += reward
    return totals, next(iter(infos.values()))


def test_corpus_shape_and_errors(tmp_path):
    topics, documents = load_corpus()
    splits = [t.split for t in topics.values()]
    assert len(topics) >= 30 and splits.count("test") >= 10 and splits.count("train") >= 20
    assert {t.domain for t in topics.values()} == set(DOMAINS)
    for name, docs in documents.items():
        assert len(docs) == MAX_DOCS
        assert sum(d.relevant and d.reliable for d in docs) >= 3
        assert any(not d.reliable for d in docs) and any(not d.relevant for d in docs)
        assert any(f.kind == "argument" and f.supports for d in docs for f in d.facts)
        # besides the forum post, an unreliable source of a type that is reputable elsewhere
        assert any(not d.reliable and d.source != "forum post" for d in docs), name
    (tmp_path / "topics.jsonl").write_text(
        json.dumps(
            {"topic": "t", "question": "q?", "keywords": [], "framework": "pest", "structure": "classic"}
        )
        + "\n{oops\n"
    )
    with pytest.raises(CorpusError, match=r"topics\.jsonl:2: not valid JSON"):
        load_corpus(tmp_path)
    (tmp_path / "topics.jsonl").write_text(
        json.dumps(
            {"topic": "t", "question": "q?", "keywords": [], "framework": "bcg", "structure": "classic"}
        )
    )
    with pytest.raises(CorpusError, match="unknown framework 'bcg'"):
        load_corpus(tmp_path)


def test_judge_dimensions_react_to_errors_gaps_and_redundancy():
    topics, documents = load_corpus()
    topic = topics["ev_market"]
    good = [f for d in documents["ev_market"][:3] for f in d.facts]
    keys = sorted({f.claim for f in good})
    best = judge(compose(topic, good, "swot", topic.structure, "standard"), topic, keys)
    assert best == pytest.approx({"accuracy": 1, "depth": 1, "structure": 1, "readability": 1, "score": 1})
    wrong = [f for d in documents["ev_market"] if d.source == "forum post" for f in d.facts]
    erroneous = compose(topic, good + wrong, "swot", topic.structure, "standard")
    assert "fact_error" in report_issues(erroneous)
    assert judge(erroneous, topic, keys)["accuracy"] == pytest.approx(6 / 8)
    gap = [f for f in good if f.claim != "ev_market:battery_cost"]
    gapped = compose(topic, gap, "swot", topic.structure, "standard")
    assert report_issues(gapped) == {"logic_gap"}
    assert judge(gapped, topic, keys)["depth"] < 0.8
    padded = compose(topic, good + good[:1], "pest", "classic", "detailed")
    scores = judge(padded, topic, keys)
    assert report_issues(padded) == {"redundancy"}
    assert scores["structure"] == pytest.approx(0.25) and scores["readability"] < 0.7
    assert judge(compose(topic, [], None, "classic", "standard"), topic, keys)["score"] < 0.1


def test_parallel_api_spaces_and_masks():
    env = ResearchReportEnv()
    parallel_api_test(env, num_cycles=60)
    observations, _ = env.reset(seed=2)
    for agent, obs in observations.items():
        assert env.observation_space(agent).contains(obs)
        assert obs["action_mask"][0] == (agent != "researcher")  # only the researcher acts first
    assert env.state_space.contains(env.state())


def random_trajectory(env, seed):
    out = []
    observations, _ = env.reset(seed=seed)
    for _ in range(3):
        while env.agents:
            actions = {a: env.action_space(a).sample(mask=o["action_mask"]) for a, o in observations.items()}
            observations, rewards, terms, truncs, infos = env.step(actions)
            out.append((actions, rewards, {a: o["text"] for a, o in observations.items()}, json.dumps(infos)))
        observations, _ = env.reset()
    return out


def test_same_seed_same_trajectory():
    assert random_trajectory(ResearchReportEnv(), 5) == random_trajectory(ResearchReportEnv(), 5)
    assert random_trajectory(ResearchReportEnv(), 5) != random_trajectory(ResearchReportEnv(), 6)


def test_scripted_team_writes_accepted_reports_in_few_steps_but_trusts_the_wrong_sources():
    env = ResearchReportEnv()
    scores, steps, fooled = [], [], 0
    for topic in env.topic_names:
        totals, info = run_scripted(env, topic)
        assert info["accepted"]
        scores.append(info["scores"]["score"])
        steps.append(info["steps"])
        picked = [d for d in env.documents[topic] if d.id in info["sources"]]
        # +0.1 shaping per relevant reliable source on top of the shared judge score
        good = sum(d.relevant and d.reliable for d in picked)
        assert totals["researcher"] == pytest.approx(0.1 * good + info["scores"]["score"])
        fooled += any(not d.reliable for d in picked)
    # a fixed source-type ranking never picks a forum post but cannot know which outlets a domain can't trust
    assert 0.6 <= np.mean(scores) <= 0.85 and max(steps) <= 20
    assert fooled >= len(env.topic_names) // 2


def test_seed_shaping_rewards_review_loop_and_step_limit():
    env = ResearchReportEnv(shuffle=False, false_flag_penalty=0.02)
    env.reset(seed=0, options={"topic": "ev_market"})
    forum = slot_of(env, lambda d: not d.reliable)
    good = slot_of(env, lambda d: d.id == "ev_market-1")
    _, rewards, *_ = env.step(act("researcher", f"pick_source_{forum}"))
    assert rewards["researcher"] == 0.0
    _, rewards, *_ = env.step(act("researcher", f"pick_source_{good}"))
    assert rewards["researcher"] == pytest.approx(0.1)
    env.step(act("researcher", "enough"))
    assert env.phase == "analysis"
    for slot in range(len(env.fact_pool)):  # forum facts (wrong) and the good ones
        env.step(act("analyst", f"adopt_fact_{slot}"))
    env.step(act("analyst", "framework_swot"))
    env.step(act("analyst", "done"))
    _, rewards, *_ = env.step(act("writer", "submit"))
    assert rewards["analyst"] == pytest.approx(0.05 * 2)  # the two adopted correct facts are in the draft
    assert "fact_error" in report_issues(env.draft)
    assert report_issues(env.draft) == {"fact_error", "redundancy"}  # the forum restates claims wrongly
    _, rewards, *_ = env.step(act("reviewer", "flag_logic_gap"))
    assert rewards["reviewer"] == pytest.approx(-0.02)  # false flag: no argument in the draft
    env.step(act("reviewer", "flag_fact_error"))
    _, rewards, *_ = env.step(act("reviewer", "send_back"))
    assert rewards["writer"] == pytest.approx(0.02 * 2)  # the two correct paragraphs were not flagged
    assert env.phase == "writing"
    observations, rewards, *_ = env.step(act("writer", "submit"))
    assert rewards["reviewer"] == pytest.approx(0.05)  # the flagged fact error was fixed
    assert report_issues(env.draft) == set()
    _, rewards, terms, _, infos = env.step(act("reviewer", "accept"))
    assert all(terms.values())
    assert infos["writer"]["scores"]["accuracy"] == 1.0
    assert rewards["writer"] == pytest.approx(0.02 * 2 + infos["writer"]["scores"]["score"])

    env = ResearchReportEnv(max_steps=8)
    env.reset(seed=0)
    for _ in range(8):
        _, rewards, terms, truncs, _ = env.step({})  # the researcher never acts
    assert all(truncs.values()) and not any(terms.values()) and env.agents == []
    assert rewards["analyst"] == pytest.approx(-1.0)


def test_validate_params_and_registry():
    assert ResearchReportEnv.validate_params({"max_steps": 40, "topics": ["ev_market"]}) == []
    errors = ResearchReportEnv.validate_params(
        {"max_steps": 3, "topics": ["mars"], "writer_model": "/nope", "speed": 1}
    )
    assert {e.path for e in errors} == {"$.max_steps", "$.topics", "$.writer_model", "$.speed"}
    env = make_env("research_report", {"topics": ["urban_heat"], "max_sources": 3})
    observations, _ = env.reset(seed=1)
    assert env.topic.topic == "urban_heat" and "heat" in observations["researcher"]["text"]
    assert ResearchReportEnv.expected_agents({}) == list(AGENTS)


def test_scripted_agents_survive_domain_randomisation():
    env = DomainRandomisation(ResearchReportEnv(), drop_context=0.3, latency=0.2, failure=0.1, seed=0)
    parallel_api_test(env, num_cycles=40)
    team = ScriptedResearchTeam()
    observations, _ = env.reset(seed=3)
    while env.agents:
        actions = team.actions(observations)
        for agent, action in actions.items():
            assert observations[agent]["action_mask"][action] == 1
        observations, _, _, _, infos = env.step(actions)
    assert next(iter(infos.values()))["steps"] <= env.unwrapped.max_steps


def test_writer_on_a_local_causal_lm(tmp_path):
    model_dir = build_tiny_causal_lm(tmp_path / "lm")
    env = ResearchReportEnv(writer_model=str(model_dir), topics=["remote_work"])
    _, info = run_scripted(env, "remote_work")
    assert info["accepted"] and env.draft is not None
    fact = env.draft.paragraphs[1].facts[0]
    assert env.draft.paragraphs[1].text.startswith(fact.text)  # facts kept, LM text appended
    with pytest.raises(ValueError, match="writer_model"):
        ResearchReportEnv(writer_model=str(tmp_path))


def test_pettingzoo_seed_test():
    parallel_seed_test(ResearchReportEnv, num_cycles=40)


def test_scripted_team_lookup_by_environment_name():
    from agents.envs.scripted import scripted_team

    assert isinstance(scripted_team("research_report"), ScriptedResearchTeam)
    with pytest.raises(ValueError, match="available: customer_service, research_report"):
        scripted_team("number_guess")


def test_structured_view_follows_what_the_agents_text_shows():
    from agents.envs.research_report.env import FEATURE_SIZES, SOURCE_TYPES
    from agents.envs.research_report.views import HEAD

    env = ResearchReportEnv(topics=["urban_heat"])
    observations, _ = env.reset(seed=3)
    assert {a: o["features"].shape[0] for a, o in observations.items()} == FEATURE_SIZES
    assert observations["writer"]["question"] == env.topic.question
    forum = slot_of(env, lambda doc: doc.source == "forum post")
    width = 3 + len(SOURCE_TYPES)
    assert observations["researcher"]["features"][3 + DOMAINS.index("environment")] == 1.0  # the domain
    slot = observations["researcher"]["features"][HEAD + forum * width : HEAD + (forum + 1) * width]
    assert slot[1] == 0.0 and slot[3 + SOURCE_TYPES.index("forum post")] == 1.0  # shown, not picked
    observations, *_ = env.step(act("researcher", f"pick_source_{forum}"))
    assert observations["researcher"]["features"][HEAD + forum * width + 1] == 1.0  # now picked
    observations, *_ = env.step(act("researcher", "enough"))
    analyst = observations["analyst"]["features"]
    assert analyst[1] == 0.0  # a new phase: no steps spent in it yet
    assert analyst[HEAD + 3] == 1.0  # framework: none yet
    env.step(act("analyst", "adopt_fact_0"))
    env.step(act("analyst", "done"))
    observations, *_ = env.step(act("writer", "submit"))
    reviewer = observations["reviewer"]["features"]
    assert reviewer[HEAD + 3 + SOURCE_TYPES.index("forum post")] == 1.0  # cited: visible in its text
    assert "forum post" in observations["reviewer"]["text"]


def test_train_and_test_topics_are_apart_and_the_generator_is_deterministic(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    train, test = ResearchReportEnv(split="train"), ResearchReportEnv(split="test")
    assert len(train.topic_names) >= 20 and len(test.topic_names) >= 10
    assert not set(train.topic_names) & set(test.topic_names)
    assert {train.topics[t].domain for t in test.topic_names} == set(DOMAINS)  # every domain is tested
    for _ in range(20):
        train.reset()
        assert train.topic.split == "train"
    assert ResearchReportEnv.validate_params({"split": "dev"})[0].path == "$.split"
    data = Path(__file__).resolve().parents[3] / "data" / "research_report"
    subprocess.run([sys.executable, str(data / "generate.py"), "--out", str(tmp_path)], check=True)
    for name in ("topics.jsonl", "documents.jsonl"):
        assert (tmp_path / name).read_text() == (data / name).read_text(), f"regenerate {name}"


def test_the_reader_skips_the_free_text_view():
    from agents.envs import env_class

    assert env_class("research_report").unread_fields == ("text",)
