"""Reward composer: weighted terms per phase, presets, human feedback, and clear errors."""

import json
import math

import pytest

from training.reward import (
    PRESETS,
    REWARD_TERMS,
    HumanFeedbackSource,
    JsonlHumanFeedback,
    RewardComposer,
    RewardSpecError,
)


def test_phase_rewards_preset_matches_the_seed():
    composer = RewardComposer.from_preset("phase_rewards")
    values = {
        "task": 1.0,
        "entropy_bonus": 0.5,
        "coherence_penalty": 0.4,
        "transfer_score": 0.2,
        "domain_performance": 0.6,
    }
    assert composer.compose(values, "exploration") == pytest.approx(0.7 * 0.5 + 0.3 * 1.0)
    assert composer.compose(values, "exploitation") == pytest.approx(0.9 * 1.0 - 0.1 * 0.4)
    assert composer.compose(values, "transfer") == pytest.approx(0.5 * 0.2 + 0.5 * 0.6)


def test_hierarchical_preset_is_task_minus_coherence_plus_collaboration():
    composer = RewardComposer.from_preset("hierarchical")
    r = composer.compose({"task": 0.8, "coherence_penalty": 0.5, "collaboration_bonus": 1.0}, "exploitation")
    assert r == pytest.approx(0.8 - 0.3 * 0.5 + 0.2 * 1.0)


def test_spec_terms_override_preset_and_breakdown_names_terms():
    composer = RewardComposer.from_spec(
        {
            "preset": "hierarchical",
            "terms": [
                {"term": "communication_cost", "weights": {"exploitation": -0.05}},
                {"term": "task", "weights": {"exploitation": 2.0}},
            ],
        }
    )
    parts = composer.breakdown({"task": 1.0, "communication_cost": 4.0}, "exploitation")
    assert parts == pytest.approx(
        {"task": 2.0, "communication_cost": -0.2, "coherence_penalty": 0.0, "collaboration_bonus": 0.0}
    )
    assert composer.weight("coherence_penalty", "exploitation") == -0.3


@pytest.mark.parametrize(
    "weights, fragment",
    [
        ({"taks": {"exploration": 1.0}}, "'taks' is unknown"),
        ({"task": {"exploration": float("nan")}}, "must be finite"),
        ({"task": {"exploration": "1.0"}}, "must be a number"),
        ({"task": {"exploration": True}}, "must be a number"),
        ({"task": {"exploration": 11}}, "outside [-10, 10]"),
        ({"task": 0.5}, "must map phase"),
    ],
)
def test_bad_weights_give_one_line_errors(weights, fragment):
    with pytest.raises(RewardSpecError) as info:
        RewardComposer(weights)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_unknown_preset_and_code_like_terms_are_rejected_not_run():
    with pytest.raises(RewardSpecError, match="preset 'greedy' is unknown"):
        RewardComposer.from_preset("greedy")
    with pytest.raises(RewardSpecError, match="is unknown"):
        RewardComposer.from_spec({"terms": [{"term": "__import__('os').system('x')", "weights": {"a": 1}}]})
    composer = RewardComposer.from_preset("hierarchical")
    with pytest.raises(RewardSpecError, match="unknown term"):
        composer.compose({"bogus": 1.0}, "exploration")


def test_human_feedback_comes_from_a_jsonl_source(tmp_path):
    path = tmp_path / "ratings.jsonl"
    rows = [
        {"episode_key": "run1/ep3", "rating": 0.8},
        {"episode_key": "run1/ep3", "rating": 0.4},
        {"episode_key": "run1/ep4", "rating": 1},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    source = JsonlHumanFeedback(path)
    assert isinstance(source, HumanFeedbackSource)
    composer = RewardComposer(
        {"task": {"exploitation": 1.0}, "human_feedback": {"exploitation": 0.5}}, human_feedback=source
    )
    assert composer.compose({"task": 1.0}, "exploitation", episode_key="run1/ep3") == pytest.approx(1.3)
    assert composer.compose({"task": 1.0}, "exploitation", episode_key="unrated") == pytest.approx(1.0)


def test_malformed_feedback_file_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"episode_key": "a", "rating": 0.5}\n{"episode_key": "b", "rating": 7}\n')
    with pytest.raises(RewardSpecError, match=r"bad.jsonl:2: rating must be a number in \[0, 1\]"):
        JsonlHumanFeedback(path)
    with pytest.raises(RewardSpecError, match="does not exist"):
        JsonlHumanFeedback(tmp_path / "missing.jsonl")


def test_presets_only_use_known_terms_and_finite_weights():
    for preset in PRESETS.values():
        for term, per_phase in preset.items():
            assert term in REWARD_TERMS
            assert all(math.isfinite(w) for w in per_phase.values())
