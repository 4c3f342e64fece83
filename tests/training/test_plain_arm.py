"""The plain-classifier arm of a routing team (training.baselines.plain_policy): the rules team reading
tickets with a logistic regression on frozen sentence vectors, beside the rules and the learned team in the
verdict. A hashed bag of words stands in for the sentence encoder so the test takes seconds."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import torch

from agents.spec import load_spec
from training.baselines import (
    ClassifierRouter,
    evaluation_env,
    has_plain,
    plain_policy,
    play_episodes,
)
from training.plain_classifier import PlainClassifier
from training.verdict import judge

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class WordHashes:
    """A tiny stand-in for the backbone: each text as hashed counts of its words (deterministic)."""

    width = 256

    def encode(self, texts):
        out = torch.zeros(len(texts), self.width)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, zlib.crc32(word.strip(".,?!").encode()) % self.width] += 1.0
        return out + 1e-3  # never an all-zero vector (an empty queue)


def team(name: str, **params):
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    doc["environment"]["params"].update(params)
    return load_spec(doc, require_environment=True)


def training_subset(path: Path, count: int = 400) -> str:
    """The first ``count`` training tickets as a ticket file (a small fit keeps the test fast)."""
    from agents.envs.routing import routing

    rows = routing("customer_service").load_tickets("train", {})[:count]
    path.write_text("".join(json.dumps({"text": t.text, "intents": list(t.intents)}) + "\n" for t in rows))
    return str(path)


def test_only_routing_teams_get_a_plain_classifier_arm():
    assert has_plain(team("customer_service"))
    assert not has_plain(team("code_generation")) and not has_plain(team("interactive_support"))


def test_the_plain_arm_reads_test_tickets_it_never_saw_and_plays_the_same_episodes(tmp_path):
    routing_team = team("customer_service", tickets=training_subset(tmp_path / "train.jsonl"))
    plain = plain_policy(routing_team, WordHashes())
    scores = play_episodes(evaluation_env(routing_team), plain, 40)
    again = play_episodes(evaluation_env(routing_team), plain, 40)
    assert scores == again  # episode k is fixed by its seed
    # a classifier of word counts fitted on 400 labelled training tickets reads far above chance (the
    # exact intent set of one to three of eight intents) on the held-out test tickets
    assert np.mean(scores.scores) >= 0.4
    assert len(scores.costs) == 40 and all(c >= 1 for c in scores.costs)


def test_the_router_answers_every_intent_at_half_or_more_and_falls_back_to_the_most_probable():
    rows = [
        {"text": "refund my order please", "intents": ["refund"]},
        {"text": "where is my parcel", "intents": ["tracking"]},
        {"text": "refund and where is my parcel", "intents": ["refund", "tracking"]},
    ] * 5
    router = ClassifierRouter(PlainClassifier.fit(WordHashes().encode, rows, ["refund", "tracking", "other"]))
    assert set(router.predict("refund and where is my parcel")) == {"refund", "tracking"}
    assert router.predict("where is my parcel") == ("tracking",)
    for text in ("zzz qqq", "refund", "parcel", "my order"):
        (p,) = router.classifier.probabilities([text])
        sure = {name for name, q in zip(router.classifier.intents, p, strict=True) if q >= 0.5}
        assert set(router.predict(text, fallback=False)) == sure
        fallback = set(router.predict(text, fallback=True))
        assert fallback == (sure or {router.classifier.intents[int(p.argmax())]})  # at least the likeliest
        assert "other" not in fallback  # an intent no row names is never chosen


def test_the_verdict_judges_the_learned_team_against_a_plain_classifier_that_beats_the_rules():
    scores = {"rules": [0, 1, 0, 1] * 25, "plain": [1, 1, 0, 1] * 25, "mappo": [1, 1, 0, 1] * 25}
    verdict = judge(scores, learned="mappo", score_name="exact match")
    assert verdict.baseline == "plain" and verdict.outcome == "no_better"
    assert "a plain classifier on the same backbone" in verdict.sentence
    assert verdict.sentence.endswith("a plain classifier is enough")
    assert {a.name for a in verdict.arms} == {"rules", "plain", "mappo"}
