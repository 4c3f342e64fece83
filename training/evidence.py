"""The evidence a routing team's actors act on, and a warm start that follows it (``actor_evidence``).

With ``environment.params.actor_evidence = "reader_plain"`` each actor's clause reader reports, per intent,
the average of its clauses' probability and a plain one-vs-rest logistic regression's on the whole
ticket's unit sentence vector (`training.plain_classifier`, fitted here on the warm start's training
tickets, fixed afterwards like the rest of the reader). The warm start then clones a team that answers
every intent that evidence puts at one half or above, and at least its most probable one
(`evidence_tickets`: the training tickets relabelled with the evidence's intents, read by the environment's
labelled expert), so the actors learn to answer where their evidence says rather than where the labels
say and the evidence does not. With ``"reader_plain_answers"`` (the routing template's) the actors see only
those answers, 1 or 0 per intent: on the training tickets the fitted readers' scores are near 0 or 1, so
soft scores on other authors' tickets were an input the cloned actors never saw. `evidence_agreement` is the
check on a dev split: on how many tickets the greedy team answered exactly the evidence's intents.

Measured in docs/experiments/2026-12-05-generalisation.md (decision 0030).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch

from training.plain_classifier import PlainClassifier

__all__ = ["chosen", "evidence", "evidence_agreement", "evidence_tickets", "fit_plain_head"]


def fit_plain_head(reader: Any, wholes: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
    """Fit the plain classifier on the whole-ticket vectors ``wholes`` [T, W] and multi-hot ``labels``
    [T, C] and copy it into every agent's ``reader.whole`` head (weights [N, W, C], bias [N, C]).

    Returns the classifier's exact match on these rows (its training fit)."""
    names = tuple(str(c) for c in range(labels.shape[1]))
    rows = [
        {"text": str(i), "intents": tuple(n for n, on in zip(names, row, strict=True) if on)}
        for i, row in enumerate(labels.bool().tolist())
    ]
    vectors = wholes.detach().float()
    plain = PlainClassifier.fit(lambda texts: vectors[[int(t) for t in texts]], rows, names)
    weight, bias = plain.linear()
    with torch.no_grad():
        reader.whole.weight.copy_(torch.as_tensor(weight.T, dtype=torch.float32).expand_as(reader.whole.weight))
        reader.whole.bias.copy_(torch.as_tensor(bias, dtype=torch.float32).expand_as(reader.whole.bias))
    return {"plain_exact_match": plain.exact_match(rows)}


def chosen(probabilities: torch.Tensor | np.ndarray) -> np.ndarray:
    """The intents the evidence answers [T, C] (bool): probability ≥ 0.5, and at least the most probable."""
    return PlainClassifier.chosen(np.asarray(probabilities))


def evidence(actor: Any, featurize: Any, texts: Sequence[str]) -> torch.Tensor:
    """Agent 0's reader's scores [len(texts), C] of ``texts`` (every agent's reader starts the same and a
    fitted reader stays fixed); ``featurize``: the team's featurizer, whose ``text`` gives clause blocks."""
    if actor.reader is None:
        raise ValueError("the team's observations have no clause block: it has no reader's evidence")
    with torch.no_grad():
        blocks = featurize.text(list(texts))
        agents = actor.reader.l1.weight.shape[0]  # each agent's reader reads its own copy
        return actor.reader(blocks.unsqueeze(1).expand(-1, agents, -1))[:, 0]


def evidence_tickets(actor: Any, featurize: Any, tickets: Sequence[Any], names: Sequence[str]) -> list:
    """``tickets`` (frozen dataclasses with ``text`` and ``intents``) with their intents replaced by the ones
    the evidence answers (``names``: the catalogue's intents, in the reader's output order)."""
    on = chosen(evidence(actor, featurize, [t.text for t in tickets]))
    return [
        dataclasses.replace(t, intents=tuple(n for n, yes in zip(names, row, strict=True) if yes))
        for t, row in zip(tickets, on, strict=True)
    ]


def evidence_agreement(
    env: Any, policy: Callable[[Mapping[str, Any]], Mapping[str, int]], actor: Any, featurize: Any
) -> dict[str, Any]:
    """Every ticket of routing environment ``env`` played once in file order by the greedy ``policy``:
    the share where the team's answer is exactly the evidence's intents, and both exact matches."""
    tickets, names = env.unwrapped.tickets, tuple(env.unwrapped.catalogue.names)
    said = evidence_tickets(actor, featurize, tickets, names)
    agree = team_exact = evidence_exact = 0
    for index, (ticket, says) in enumerate(zip(tickets, said, strict=True)):
        observations, _ = env.reset(seed=index, options={"ticket_index": index})
        info: dict[str, Any] = {}
        while env.agents:
            observations, _, _, _, infos = env.step(policy(observations))
            info = next(iter(infos.values()))
        answered = set(info["predicted_intents"])
        agree += answered == set(says.intents)
        team_exact += bool(info["exact_match"])
        evidence_exact += set(says.intents) == set(ticket.intents)
    n = max(1, len(tickets))
    return {
        "team_follows_evidence": agree / n,
        "team_exact_match": team_exact / n,
        "evidence_exact_match": evidence_exact / n,
        "tickets": len(tickets),
    }
