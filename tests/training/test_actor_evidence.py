"""The actors' evidence (``environment.params.actor_evidence``, decision 0030): clause readers averaged with a
plain logistic regression on the whole ticket's vector, and a warm start that clones a team answering what
that evidence says."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch

from agents.envs.customer_service.params import CustomerServiceParams
from agents.envs.customer_service.tickets import Ticket
from agents.envs.routing import start_options
from training.evidence import chosen, evidence_tickets, fit_plain_head
from training.mappo.networks import ClauseReader


def _reader_and_blocks(seed: int = 0) -> tuple[ClauseReader, torch.Tensor, torch.Tensor]:
    """A plain-evidence reader (2 agents, 3 intents, 4-wide whole vectors) and 30 blocks whose whole
    vector says the intent (one-hot directions) and whose clauses are noise."""
    gen = torch.Generator().manual_seed(seed)
    reader = ClauseReader(2, slots=2, dim=3, hidden=4, outputs=3, whole=4, evidence="reader_plain")
    labels = torch.zeros(30, 3)
    labels[torch.arange(30), torch.arange(30) % 3] = 1.0
    wholes = torch.nn.functional.normalize(
        torch.cat([labels, torch.zeros(30, 1)], 1) + 0.1 * torch.randn(30, 4, generator=gen), dim=1
    )
    clauses = torch.randn(30, 2 * 3, generator=gen)
    blocks = torch.cat([wholes, clauses, torch.ones(30, 2)], 1)
    return reader, blocks, labels


def test_the_plain_head_is_the_logistic_regression_and_the_scores_average_both():
    reader, blocks, labels = _reader_and_blocks()
    report = fit_plain_head(reader, blocks[:, :4], labels)
    assert report["plain_exact_match"] == 1.0
    assert torch.equal(reader.whole.weight[0], reader.whole.weight[1])  # every agent gets the same fit
    x = blocks.unsqueeze(1).expand(-1, 2, -1)
    plain = torch.sigmoid(reader.whole(x[..., :4]))
    clauses = torch.sigmoid(reader._clause_logits(x[..., 4:]))
    assert torch.allclose(reader(x), 0.5 * (plain + clauses), atol=1e-6)
    assert torch.allclose(torch.sigmoid(reader.logits(x)), reader(x), atol=1e-5)
    assert (plain.argmax(-1)[:, 0] == labels.argmax(-1)).all()


def test_answers_evidence_is_one_where_the_average_answers_and_zero_elsewhere():
    reader, blocks, labels = _reader_and_blocks()
    fit_plain_head(reader, blocks[:, :4], labels)
    answers = ClauseReader(2, slots=2, dim=3, hidden=4, outputs=3, whole=4, evidence="reader_plain_answers")
    answers.load_state_dict(reader.state_dict())
    x = blocks.unsqueeze(1).expand(-1, 2, -1)
    with torch.no_grad():
        said = answers(x)
    assert set(said.unique().tolist()) <= {0.0, 1.0} and (said.sum(-1) >= 1).all()  # at least one intent
    assert np.array_equal(said[:, 0].bool().numpy(), chosen(reader(x)[:, 0].detach().numpy()))


def test_the_evidence_answers_what_is_above_one_half_and_at_least_its_top_intent():
    probabilities = np.array([[0.9, 0.6, 0.1], [0.2, 0.3, 0.1], [0.5, 0.1, 0.1]])
    assert chosen(probabilities).tolist() == [[True, True, False], [False, True, False], [True, False, False]]


def test_the_warm_starts_tickets_carry_the_evidences_intents():
    reader, blocks, labels = _reader_and_blocks()
    fit_plain_head(reader, blocks[:, :4], labels)
    with torch.no_grad():  # clauses say nothing: the average stays on the plain side of one half
        reader.l2.weight.zero_()
        reader.l2.bias.fill_(-20.0)
    names = ("a", "b", "c")
    texts = [f"t{i}" for i in range(30)]
    featurize = SimpleNamespace(text=lambda ts: blocks[[int(t[1:]) for t in ts]])
    tickets = [Ticket(f"id{i}", t, ("c",)) for i, t in enumerate(texts)]  # labels the evidence disagrees with
    said = evidence_tickets(SimpleNamespace(reader=reader), featurize, tickets, names)
    assert [t.intents for t in said] == [(names[i % 3],) for i in range(30)]
    assert [t.text for t in said] == texts and [t.id for t in said] == [t.id for t in tickets]


def test_the_option_is_validated_and_read_once():
    assert CustomerServiceParams.problems({"actor_evidence": "plain_only"})
    assert not CustomerServiceParams.problems({"actor_evidence": "reader_plain"})
    assert not CustomerServiceParams.problems({"actor_evidence": "reader_plain_answers"})
    env = SimpleNamespace(name="customer_service", params={"reader": "clause_keywords"})
    assert not start_options(env).plain_evidence and not start_options(env).whole_vector
    env.params["actor_evidence"] = "reader_plain"
    assert start_options(env).plain_evidence and start_options(env).whole_vector
    env.params["reader"] = "whole"  # no clause readers: no evidence to average
    assert not start_options(env).plain_evidence


# The spec path (spec → run → checkpoint → runtime) with this evidence is tests/training/test_spec_warm_start.py:
# its specs start from the shipped template, which sets actor_evidence "reader_plain_answers".
