"""Research reports and collaborative posts written section by section through the generation layer, and
judged from their text.

With the template backend the written text is the draft the team composed, word for word, and the judge
gives it the environment's score; through the openai_compatible backend (a chat server process on loopback)
every section is the server's text, a fault on one section puts the template's text in that section only,
and the judge scores what was written."""

from __future__ import annotations

import numpy as np
import pytest

from agents.envs.code_generation.env import CodeGenerationEnv
from agents.envs.code_generation.scripted import ScriptedCodeTeam
from agents.envs.collaborative_writing.briefs import judge as judge_post
from agents.envs.collaborative_writing.env import CollaborativeWritingEnv
from agents.envs.research_report.env import ResearchReportEnv
from agents.envs.research_report.judge import compose, judge
from agents.envs.research_report.reading import judge_text, read_report
from serving.generation import GenerationConfig
from serving.generation.sections import CodeWriter, PostWriter, ReportWriter
from serving.generation.template import NOTHING_TO_ANSWER
from tests.serving.generation.conftest import KEY_ENV, SECRET, chat_server

AGENTS = [
    {"id": "researcher", "role": "researcher", "prompt": "You are the researcher."},
    {"id": "writer", "role": "writer", "prompt": "You are the writer. Write plain report prose."},
    {"id": "reviewer", "role": "reviewer", "prompt": "You are the reviewer."},
]


def played(env: ResearchReportEnv, topic: str, seed: int) -> dict:
    """One episode under a random valid policy (drafts of every kind: brief, padded, sent back, fixed),
    as the runtime reports it: the last info and the decisions."""
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed, options={"topic": topic})
    info, decisions = next(iter(infos.values())), []
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
        actor = env.actor
        decisions.append({"agent": actor, "action": env.action_names(actor)[actions[actor]]})
        observations, _, _, _, infos = env.step(actions)
        info = next(iter(infos.values()), info)
    return {"info": info, "decisions": decisions}


@pytest.fixture(scope="module")
def env() -> ResearchReportEnv:
    return ResearchReportEnv(split="all")


def test_the_text_judge_scores_every_template_draft_as_the_judge_scores_its_blocks(env):
    checked = 0
    for number, topic in enumerate(env.topic_names):  # every topic, each draft an episode reached
        played(env, topic, seed=number)
        facts = [f for d in env.documents[topic] for f in d.facts]
        for detail in ("brief", "standard", "detailed"):
            report = compose(env.topic, env.adopted, env.framework, env.structure, detail)
            assert judge_text(report.text, env.topic, facts, env.key_claims) == judge(
                report, env.topic, env.key_claims
            )
            checked += 1
    assert checked == 3 * len(env.topic_names)


def test_the_reader_recognises_a_paraphrase_by_its_figures_and_not_a_wrong_figure(env):
    env.reset(options={"topic": "ev_market"})
    facts = [f for d in env.documents["ev_market"] for f in d.facts]
    text = (
        "## Problem\nThis report looks at EVs through a SWOT lens.\n## Evidence\n"
        "In 2023 electric cars made up 18% of all new car sales, compared with 4% in 2020.\n"
        "Public charging points grew 18% in 2023 and remain concentrated in cities."
    )
    report = read_report(text, facts)
    assert report.structure == "problem_solution" and report.framework == "swot"
    stated = [(f.claim, f.correct) for f in report.facts]
    assert stated == [("ev_market:sales", True), ("ev_market:chargers", False)]


def test_with_the_template_backend_the_report_is_the_draft_and_gets_its_score(env):
    writer = ReportWriter.build(GenerationConfig(), AGENTS)
    written = 0
    for number, topic in enumerate(env.topic_names[:12]):
        result = played(env, topic, seed=100 + number)
        reply = writer.answer("", result)
        if env.draft is None:  # the steps ran out before a draft: nothing written
            assert reply["parts"] == [] and reply["scores"] == {}
            continue
        assert reply["text"] == env.draft.text
        assert reply["scores"] == judge(env.draft, env.topic, env.key_claims)
        if result["info"]["accepted"]:
            assert reply["scores"] == result["info"]["scores"]
        assert reply["sections"] == list(dict.fromkeys(p.section for p in env.draft.paragraphs))
        assert {p["source"] for p in reply["parts"]} == {"model"} and not reply["faults"]
        written += 1
    writer.close()
    assert written >= 6


def test_through_a_chat_server_each_section_is_written_and_a_faulty_one_falls_back_alone(
    env, tmp_path, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, SECRET)
    result = next(
        r
        for seed in range(50)
        if (r := played(env, "ev_market", seed))["info"]["draft"]
        and len({p["section"] for p in r["info"]["draft"]["paragraphs"]}) >= 3
        and r["info"]["draft"]["paragraphs"][1]["section"] != r["info"]["draft"]["paragraphs"][-1]["section"]
    )
    template = ReportWriter.build(GenerationConfig(), AGENTS).answer("", result)
    faulty = template["sections"][1]
    config = GenerationConfig(
        backend="openai_compatible", model="m", base_url="", api_key_env=KEY_ENV, max_retries=0
    )
    # the server answers with its own (ticket) template: free text that is not the blocks; it fails the
    # requests of one section with HTTP 500
    with chat_server(tmp_path / "server.log", faults="error", fault_match=f"Section: {faulty}") as url:
        writer = ReportWriter.build(
            GenerationConfig(**{**config.to_dict(), "base_url": url, "stop": []}), AGENTS
        )
        chunks: list[tuple[int, str]] = []
        reply = writer.answer("", result, on_chunk=lambda i, agent, text: chunks.append((i, agent)))
        writer.close()
    assert reply["sections"] == template["sections"]
    by_section = dict(zip(reply["sections"], reply["parts"], strict=True))
    for name, part in by_section.items():
        assert part["agent"] == "writer" and part["intents"] == [name]
        if name == faulty:
            assert part["source"] == "fallback" and part["fault"] == "generation_error"
            assert part["text"] == template["parts"][1]["text"]  # the template's text, this section only
        else:
            assert part["source"] == "model" and part["fault"] is None
            assert part["text"] == NOTHING_TO_ANSWER and part["backend"] == "openai_compatible"
    assert [f["kind"] for f in reply["faults"]] == ["generation_error"] and reply["fallback"]
    assert {agent for _, agent in chunks} == {"writer"}
    # the judge scores the written text: it finds only the fallback section's facts
    facts = [f for d in env.documents["ev_market"] for f in d.facts]
    stated = read_report(reply["text"], facts).facts
    assert stated == read_report(f"## {faulty}\n{template['parts'][1]['text']}", facts).facts
    assert 0 < len(stated) < len(read_report(template["text"], facts).facts)
    assert reply["scores"] == writer.judge(reply["text"], result)


# ---- collaborative writing -----------------------------------------------------------------------------

POST_AGENTS = [
    {"id": "planner", "role": "planner", "prompt": "You are the planner."},
    {"id": "writer", "role": "writer", "prompt": "You are the writer of a blog post."},
    {"id": "polisher", "role": "polisher", "prompt": "You are the polisher."},
]


def played_post(env: CollaborativeWritingEnv, brief: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed, options={"brief": brief})
    info, decisions = next(iter(infos.values())), []
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
        actor = env.actor
        decisions.append({"agent": actor, "action": env.action_names(actor)[actions[actor]]})
        observations, _, _, _, infos = env.step(actions)
        info = next(iter(infos.values()), info)
    return {"info": info, "decisions": decisions}


def test_with_the_template_backend_the_post_is_the_draft_and_gets_its_score():
    env = CollaborativeWritingEnv(split="all")
    writer = PostWriter.build(GenerationConfig(), POST_AGENTS)
    for number, brief in enumerate(env.briefs):  # every brief: the text judge reads the judge's draft
        result = played_post(env, brief.id, seed=number)
        reply = writer.answer("", result)
        if not env.draft:  # the steps ran out before a block was written: nothing to write
            assert reply["parts"] == [] and reply["scores"] == {}
            continue
        assert reply["text"] == "\n".join(f"## {s.heading}\n{b.text}" for s, b, _ in env.draft)
        assert reply["scores"] == judge_post(env.brief, env.draft)
        if result["info"]["accepted"]:
            assert reply["scores"] == result["info"]["scores"]
    writer.close()


def test_a_post_through_a_chat_server_falls_back_on_the_faulty_section_only(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    env = CollaborativeWritingEnv(split="all")
    result = next(
        r for seed in range(50) if len((r := played_post(env, env.briefs[0].id, seed))["info"]["draft"]) >= 2
    )
    template = PostWriter.build(GenerationConfig(), POST_AGENTS).answer("", result)
    faulty = template["sections"][0]
    with chat_server(tmp_path / "server.log", faults="empty", fault_match=f"Section: {faulty}") as url:
        config = GenerationConfig(backend="openai_compatible", model="m", base_url=url, api_key_env=KEY_ENV)
        writer = PostWriter.build(config, POST_AGENTS)
        reply = writer.answer("", result)
        writer.close()
    sources = [(p["source"], p["fault"]) for p in reply["parts"]]
    assert sources == [("fallback", "empty_answer")] + [("model", None)] * (len(sources) - 1)
    assert reply["parts"][0]["text"] == template["parts"][0]["text"]
    assert all(p["text"] == NOTHING_TO_ANSWER for p in reply["parts"][1:])
    assert reply["scores"] == writer.judge(reply["text"], result) != template["scores"]


def played_code(env: CodeGenerationEnv, task: str, seed: int) -> dict:
    team = ScriptedCodeTeam()
    observations, infos = env.reset(seed=seed, options={"task": task})
    info = next(iter(infos.values()))
    while env.agents:
        observations, _, _, _, infos = env.step(team.actions(observations))
        info = next(iter(infos.values()), info)
    return {"info": info, "decisions": []}


def test_a_code_answer_is_the_accepted_snippet_as_code_and_notes_on_it():
    env = CodeGenerationEnv(split="all")
    writer = CodeWriter.build(
        GenerationConfig(), [{"id": "impl", "role": "implementer", "prompt": "Be brief."}]
    )
    assert writer.agent == "impl" and writer.prompt == "Be brief."
    for number, task in enumerate(env.tasks):
        result = played_code(env, task.id, seed=number)
        info, reply = result["info"], writer.answer("", result)
        assert info["code"] in task.candidates  # the snippet under review when the steps ran out, too
        verdict = "the reviewers accepted it" if info["accepted"] else "the review did not finish"
        assert verdict in reply["text"]
        assert reply["text"].startswith(f"## Code\n```python\n{info['code'].rstrip()}\n```\n## Notes\n")
        assert task.spec in reply["text"] and "the public tests passed" in reply["text"]
        passed, total = info["hidden_tests"] if info["accepted"] else (None, None)
        tests = f"## Tests\nThe hidden tests: {passed} of {total} passed" if info["accepted"] else "did not run"
        assert tests in reply["text"] and reply["text"].index("## Notes") < reply["text"].index("## Tests")
        assert reply["sections"] == ["Notes"] and reply["scores"] == {
            "score": info["score"],
            "success": info["success"],
        }
    writer.close()


def test_a_language_model_writes_the_notes_but_never_the_code(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    env = CodeGenerationEnv(split="all")
    result = played_code(env, env.tasks[0].id, seed=0)
    with chat_server(tmp_path / "server.log") as url:
        config = GenerationConfig(backend="openai_compatible", model="m", base_url=url, api_key_env=KEY_ENV)
        writer = CodeWriter.build(config)
        reply = writer.answer("", result)
        writer.close()
    assert [(p["agent"], p["source"], p["fault"]) for p in reply["parts"]] == [("implementer", "model", None)]
    notes = reply["parts"][0]["text"]
    code = result["info"]["code"].rstrip()
    assert reply["text"].startswith(f"## Code\n```python\n{code}\n```\n## Notes\n{notes}\n## Tests\n")
    assert env.tasks[0].spec not in notes  # the server's own words, not the template's blocks


def test_a_request_out_of_scope_is_declined_with_what_the_team_can_do_and_signed_by_the_team():
    writer = PostWriter.build(GenerationConfig(), POST_AGENTS, team="Collaborative writing")
    result = {
        "status": "out_of_scope",
        "faults": [{"step": 0, "kind": "out_of_scope", "detail": "nearest item 'cw08' at similarity 0.41"}],
        "request": {"item": "cw08", "score": 0.41, "floor": 0.43, "offers": ["remote work", "sourdough"],
                    "items": 32, "in_scope": False},
    }  # fmt: skip
    reply = writer.answer("an announcement for our garden lamp", result)
    assert reply["text"].startswith("Sorry, the Collaborative writing team cannot do this request")
    assert "0.41" in reply["text"] and "above 0.43" in reply["text"]
    assert "It can write posts on: remote work, sourdough and 30 more." in reply["text"]
    assert reply["parts"] == [] and reply["sections"] == [] and reply["signature"] == "Collaborative writing"
    assert reply["faults"] == [{"agent": None, "kind": "out_of_scope", "detail": result["faults"][0]["detail"]}]
    writer.close()
