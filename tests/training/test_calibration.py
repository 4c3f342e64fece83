"""Calibrated confidence: which decisions are right, the calibration error, and the fitted temperature."""

from __future__ import annotations

import torch

from training.mappo.calibration import (
    confidences,
    correct_actions,
    expected_calibration_error,
    fit_temperature,
    temperature_vector,
)

LOGISTICS = ("pass", "track_order", "explain_delay", "change_address")
SUPERVISOR = ("continue", "approve", "send_back")


def draft(*intents: str) -> dict:
    from agents.envs.customer_service.tickets import INTENTS

    return {"draft": [int(i in intents) for i in INTENTS]}


def test_a_specialist_is_right_to_answer_any_missing_intent_it_owns_and_to_pass_when_none_is_left():
    truth = {"order_tracking", "delivery_delay", "complaint"}
    assert correct_actions(LOGISTICS, draft(), truth) == {1, 2}  # either order of its two answers
    assert correct_actions(LOGISTICS, draft("order_tracking"), truth) == {2}
    assert correct_actions(LOGISTICS, draft("order_tracking", "delivery_delay"), truth) == {0}
    assert correct_actions(LOGISTICS, draft(), {"complaint"}) == {0}  # nothing of its own: pass
    # actions over the whole catalogue (`deal_roles`): only what it owns is its to answer
    from agents.envs.customer_service.roster import CATALOGUE_ACTIONS

    owned = ("order_tracking", "delivery_delay", "address_change")
    right = correct_actions(CATALOGUE_ACTIONS, draft(), truth, owned)
    assert {CATALOGUE_ACTIONS[i] for i in right} == {"track_order", "explain_delay"}
    assert correct_actions(CATALOGUE_ACTIONS, draft(), {"complaint"}, owned) == {0}


def test_a_reviewer_is_right_to_wait_approve_a_complete_draft_and_send_back_a_wrong_one():
    truth = {"return_refund", "damaged_item"}
    assert correct_actions(SUPERVISOR, draft("return_refund"), truth) == {0}
    assert correct_actions(SUPERVISOR, draft("return_refund", "damaged_item"), truth) == {1}
    assert correct_actions(SUPERVISOR, draft("return_refund", "complaint"), truth) == {2}


def test_calibration_error_is_zero_when_confidence_matches_accuracy_and_counts_every_bin():
    conf = [0.8] * 10 + [0.3] * 10
    right = [True] * 8 + [False] * 2 + [True] * 3 + [False] * 7
    assert expected_calibration_error(conf, right) < 1e-12
    assert abs(expected_calibration_error([0.9] * 10, [True] * 5 + [False] * 5) - 0.4) < 1e-9
    assert expected_calibration_error([], []) == 0.0


def test_an_overconfident_policy_gets_a_temperature_above_one_that_fixes_its_calibration():
    gen = torch.Generator().manual_seed(0)
    n = 4000
    margin = 2.0 + 4.0 * torch.rand(n, generator=gen)  # the chosen action's logit lead
    logits = torch.stack([margin, torch.zeros(n), torch.zeros(n)], 1)
    actions = torch.zeros(n, dtype=torch.long)
    # the truth: right with the probability a temperature of 3 would give
    p_true = confidences(logits, actions, torch.tensor(3.0))
    correct = (torch.rand(n, generator=gen) < p_true).float()
    t = fit_temperature(logits, actions, correct)
    assert 2.5 < t < 3.6
    before = expected_calibration_error(
        confidences(logits, actions, torch.tensor(1.0)).tolist(), correct.bool().tolist()
    )
    after = expected_calibration_error(
        confidences(logits, actions, torch.tensor(t)).tolist(), correct.bool().tolist()
    )
    assert before > 0.15 and after < 0.03
    # the argmax, so every decision, is unchanged by a temperature
    assert torch.equal((logits / t).argmax(-1), logits.argmax(-1))


def test_temperatures_apply_only_to_the_team_they_were_fitted_for():
    doc = {"agents": ["a", "b"], "temperatures": {"a": 2.0, "b": 0.5}}
    assert temperature_vector(doc, ["a", "b"]).tolist() == [2.0, 0.5]
    assert temperature_vector(doc, ["b", "a"]) is None and temperature_vector(None, ["a"]) is None
