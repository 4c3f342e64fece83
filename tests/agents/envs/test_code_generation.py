"""Code generation: the ParallelEnv contract, the task data, the scripted pipeline, and the sandbox limits."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from agents.envs import make_env
from agents.envs.code_generation.env import AGENTS, ROLE_ACTIONS, CodeGenerationEnv, play
from agents.envs.code_generation.sandbox import SandboxLimits, network_namespace_available, run_tests
from agents.envs.code_generation.scripted import ScriptedCodeTeam
from agents.envs.code_generation.tasks import SHARED_BOOK, load_tasks
from agents.errors import SpecValidationError

FAST = SandboxLimits(cpu_seconds=1, wall_seconds=8.0, memory_mb=128)


def test_parallel_api_and_spaces():
    env = CodeGenerationEnv()
    parallel_api_test(env, num_cycles=60)
    observations, _ = env.reset(seed=3)
    for agent, obs in observations.items():
        assert env.observation_space(agent).contains(obs)
    assert env.possible_agents == list(AGENTS)


def test_the_data_has_a_train_test_split_of_tasks():
    train, test = load_tasks(split="train"), load_tasks(split="test")
    assert len(train) + len(test) >= 30 and len(test) >= 8
    assert not {t.id for t in train} & {t.id for t in test}
    assert all(len(t.candidates) == 3 and t.hidden_tests for t in train + test)


def test_every_task_has_one_snippet_that_passes_its_hidden_tests():
    for task in load_tasks(split="test"):
        passing = [i for i in range(3) if SHARED_BOOK.passed(task, i, "hidden")[0] == len(task.hidden_tests)]
        assert len(passing) == 1, task.id


def test_scripted_pipeline_runs_and_only_the_phase_agent_acts():
    env = CodeGenerationEnv(split="test", shuffle=False)
    result = play(ScriptedCodeTeam().actions, env)
    assert result["items"] == len(env.tasks) and 0.5 <= result["score"] <= 1.0
    observations, _ = env.reset(seed=0)
    masks = {a: observations[a]["action_mask"] for a in AGENTS}
    assert masks["architect"][0] == 0 and all(
        masks[a].tolist() == [1] + [0] * (len(ROLE_ACTIONS[a]) - 1) for a in AGENTS[1:]
    )


def test_accepting_pays_the_hidden_test_score_to_everyone():
    env = CodeGenerationEnv(split="test", shuffle=False)
    env.reset(seed=0)
    env.step({"architect": ROLE_ACTIONS["architect"].index("plan_direct")})
    env.step({"implementer": ROLE_ACTIONS["implementer"].index("pick_0")})
    env.step({"tester": ROLE_ACTIONS["tester"].index("done")})
    _, rewards, terms, _, infos = env.step({"code_reviewer": ROLE_ACTIONS["code_reviewer"].index("accept")})
    assert all(terms.values()) and len(set(rewards.values())) == 1
    assert rewards["architect"] == pytest.approx(infos["architect"]["score"])


def test_bad_params_are_refused_with_paths():
    with pytest.raises(SpecValidationError) as caught:
        make_env("code_generation", {"split": "dev", "max_steps": 2, "surprise": 1})
    paths = {e.path for e in caught.value.errors}
    assert {
        "$.environment.params.split",
        "$.environment.params.max_steps",
        "$.environment.params.surprise",
    } <= paths


# ---- the sandbox ------------------------------------------------------------------------------------------
def test_a_passing_and_a_failing_test_are_told_apart():
    result = run_tests("def f(x):\n    return x + 1\n", ["assert f(1) == 2", "assert f(1) == 3"], FAST)
    assert result.status == "ok" and result.outcomes == ["pass", "fail"] and not result.all_passed
    assert {"process", "rlimit_cpu", "rlimit_as", "audit_hook", "tmpdir"} <= set(result.enforced)


def test_a_snippet_that_loops_forever_is_killed_by_the_time_limit():
    result = run_tests("def f():\n    while True:\n        pass\n", ["f()"], FAST)
    assert result.status == "timeout" and result.passed == 0


def test_a_snippet_that_allocates_too_much_is_stopped_by_the_memory_limit():
    result = run_tests("def f():\n    return bytearray(1 << 30)\n", ["assert f()"], FAST)
    assert result.status == "memory" and result.passed == 0


def test_a_snippet_that_opens_a_socket_fails():
    code = (
        "import socket\ndef f():\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\n    return 1\n"
    )
    result = run_tests(code, ["assert f() == 1"], FAST)
    assert result.passed == 0 and "socket" in result.outcomes[0]
    if network_namespace_available():  # where the kernel allows it, there is no network to reach at all
        assert "netns" in result.enforced


def test_a_snippet_cannot_start_another_program_or_see_the_callers_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    code = "import os, subprocess\ndef run():\n    return subprocess.run(['true']).returncode\n"
    result = run_tests(
        code, ["assert run() == 0", f"assert not __import__('os').path.exists('{secret.name}')"], FAST
    )
    assert result.outcomes[0].startswith("error") and result.outcomes[1] == "pass"
    assert np.isfinite(result.total)
    outside = tmp_path / "written.txt"
    writes = run_tests(f"def w():\n    open({str(outside)!r}, 'w').write('x')\n", ["w()"], FAST)
    assert writes.outcomes[0].startswith("error") and not outside.exists()
    inside = run_tests(
        "def w():\n    open('here.txt', 'w').write('x')\n    return 1\n", ["assert w() == 1"], FAST
    )
    assert inside.all_passed


def test_the_scripted_pipeline_is_the_environments_fallback():
    from agents.envs.scripted import scripted_team

    assert isinstance(scripted_team("code_generation"), ScriptedCodeTeam)
