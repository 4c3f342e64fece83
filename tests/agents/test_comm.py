"""Communication attention math: masking, normalisation, gradients, exploration log-probabilities."""

from __future__ import annotations

import math

import torch

from agents.comm import (
    CommAttention,
    allowed_links,
    attention_entropy,
    communication_cost,
    consensus_score,
    deliver,
    exploration_log_prob,
    explore,
    masked_softmax,
    novelty_score,
)

torch.set_num_threads(1)


def test_self_is_masked_rows_sum_to_one_and_isolated_rows_are_zero():
    torch.manual_seed(0)
    agents = ["guesser", "c0", "c1", "c2"]
    allowed = allowed_links(4, edges=[("c0", "guesser"), ("c1", "guesser"), ("c2", "guesser")], agents=agents)
    attention = CommAttention(dim=8, d_k=4)
    alpha = attention(torch.randn(5, 4, 8), allowed)
    assert torch.all(alpha[:, 0, 0] == 0)
    torch.testing.assert_close(alpha[:, 0].sum(-1), torch.ones(5))
    assert torch.all(alpha[:, 1:] == 0)  # clue agents hear nobody: zero rows, not NaN
    full = attention(torch.randn(5, 4, 8), allowed_links(4))
    assert torch.all(full.diagonal(dim1=-2, dim2=-1) == 0)
    torch.testing.assert_close(full.sum(-1), torch.ones(5, 4))


def test_scores_follow_the_formula():
    torch.manual_seed(1)
    attention = CommAttention(dim=6, d_k=3)
    torch.nn.init.normal_(attention.W_Q.weight)
    h = torch.randn(2, 3, 6)
    q, k = h @ attention.W_Q.weight.T, h @ attention.W_K.weight.T
    expected = torch.einsum("bid,bjd->bij", q, k) / math.sqrt(3)
    torch.testing.assert_close(attention.scores(h), expected)
    alpha = attention(h, allowed_links(3))
    row = expected[0, 1, [0, 2]]
    torch.testing.assert_close(alpha[0, 1, [0, 2]], torch.softmax(row, dim=0))


def test_gradients_reach_w_q_and_w_k_through_aggregated_messages():
    torch.manual_seed(2)
    attention = CommAttention(dim=4, d_k=4)
    fresh = attention(torch.randn(3, 5, 4), allowed_links(5))
    torch.testing.assert_close(fresh, allowed_links(5).float().expand(3, 5, 5) / 4)  # W_Q = 0: uniform start
    torch.nn.init.normal_(attention.W_Q.weight)  # as after some learning: both maps then get gradients
    h = torch.randn(3, 5, 4, requires_grad=True)
    messages = torch.randn(3, 5, 2, requires_grad=True)
    received = attention.aggregate(attention(h, allowed_links(5)), messages)
    received.pow(2).sum().backward()
    for parameter in (attention.W_Q.weight, attention.W_K.weight, h, messages):
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0


def test_exploration_keeps_weights_on_the_simplex_and_zero_noise_is_identity():
    torch.manual_seed(3)
    allowed = allowed_links(4)
    alpha = masked_softmax(torch.randn(6, 4, 4), allowed)
    tilde = explore(alpha, beta=1.0, allowed=allowed)
    torch.testing.assert_close(tilde.sum(-1), torch.ones(6, 4))
    assert torch.all(tilde.diagonal(dim1=-2, dim2=-1) == 0) and not torch.allclose(tilde, alpha)
    torch.testing.assert_close(explore(alpha, 0.7, allowed, noise=torch.zeros(6, 4, 4)), alpha)


def test_log_prob_equals_gaussian_density_of_logit_difference_for_two_senders():
    # K=2: α̃_1 = sigmoid(d + β(ε1 − ε2)), d = z1 − z2, so the logit difference is N(d, 2β²).
    torch.manual_seed(4)
    allowed = torch.tensor([[False, True, True]])
    beta = 0.6
    z = torch.tensor([[[0.0, 0.3, -0.5]]], requires_grad=True)
    alpha = masked_softmax(z, allowed)
    tilde = explore(alpha, beta, allowed)
    log_prob = exploration_log_prob(tilde, alpha, beta, allowed)
    delta = (torch.log(tilde[0, 0, 1]) - torch.log(tilde[0, 0, 2])) - (z[0, 0, 1] - z[0, 0, 2])
    gaussian = -(delta**2) / (2 * 2 * beta**2)
    constant = -0.5 * math.log(2 * math.pi * beta**2)
    torch.testing.assert_close(log_prob[0, 0], gaussian + constant)


def test_log_prob_is_shift_invariant_and_peaks_at_alpha():
    torch.manual_seed(5)
    allowed = allowed_links(5)
    logits = torch.randn(2, 5, 5)
    alpha = masked_softmax(logits, allowed)
    tilde = explore(alpha, 0.5, allowed)
    shifted = masked_softmax(logits + 3.0, allowed)  # same α
    torch.testing.assert_close(
        exploration_log_prob(tilde, alpha, 0.5, allowed), exploration_log_prob(tilde, shifted, 0.5, allowed)
    )
    assert torch.all(
        exploration_log_prob(alpha, alpha, 0.5, allowed) > exploration_log_prob(tilde, alpha, 0.5, allowed)
    )


def test_score_function_gradient_matches_the_reparameterised_gradient():
    # d/dz E[f(α̃)] estimated by REINFORCE with our log-prob must equal the pathwise estimate.
    torch.manual_seed(6)
    allowed = torch.tensor([[False, True, True, True]])
    target = torch.tensor([0.0, 0.7, 0.2, 0.1])
    beta, samples = 0.5, 100_000
    z = torch.tensor([0.0, 0.2, -0.1, 0.4], requires_grad=True)
    noise = torch.randn(samples, 1, 4)

    def reward(weights):
        return -((weights[:, 0] - target) ** 2).sum(-1)

    alpha = masked_softmax(z.expand(samples, 1, 4), allowed)
    tilde = explore(alpha, beta, allowed, noise=noise)
    advantage = reward(tilde) - reward(tilde).mean()
    (score_grad,) = torch.autograd.grad(
        (exploration_log_prob(tilde, alpha, beta, allowed)[:, 0] * advantage).mean(), z
    )
    logits = torch.where(allowed, torch.log_softmax(z.masked_fill(~allowed[0], -1e9), -1), 0.0)
    path = masked_softmax(logits.expand(samples, 1, 4) + beta * noise, allowed)
    (path_grad,) = torch.autograd.grad(reward(path).mean(), z)
    torch.testing.assert_close(score_grad[1:], path_grad[1:], atol=4e-3, rtol=0.15)
    assert torch.sign(score_grad[1]) == torch.sign(path_grad[1]) == 1


def test_delivery_threshold_cost_entropy_and_shaping_scores():
    allowed = allowed_links(3)
    weights = torch.tensor([[[0.0, 0.96, 0.04], [0.5, 0.0, 0.5], [0.02, 0.98, 0.0]]])
    delivered_weights, delivered = deliver(weights, 0.05, allowed)
    assert delivered.sum() == 4 and delivered_weights[0, 0, 2] == 0 and delivered_weights[0, 0, 1] == 0.96
    torch.testing.assert_close(communication_cost(delivered, 0.01), torch.tensor([0.04]))
    entropy = attention_entropy(torch.tensor([[0.5, 0.5, 0.0]]), torch.tensor([True, True, False]))
    torch.testing.assert_close(entropy, torch.tensor([math.log(2)]))
    own = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    torch.testing.assert_close(
        novelty_score(own, torch.tensor([[1.0, 0.0], [-1.0, 0.0]])), torch.tensor([0.0, 1.0])
    )
    vectors = torch.tensor([[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])
    torch.testing.assert_close(
        consensus_score(vectors, torch.tensor([True, True, False])), torch.tensor([1.0])
    )
    torch.testing.assert_close(
        consensus_score(vectors, torch.tensor([True, False, True])), torch.tensor([0.0])
    )
