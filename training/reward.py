"""Reward composer: a declarative, weighted sum of named reward terms, per evolution phase.

The designer writes the reward as data (the team spec's `reward` section): a list of terms, each with one
weight per evolution phase, or a named preset. Nothing the user types is ever evaluated as code: a term
is looked up by name in a fixed table, and a weight must be a finite number.

Sign convention: every term value is measured as a non-negative magnitude where that makes sense
(a *penalty* or a *cost* is how much of it there was), and the weight carries the direction. So the
exploitation preset's reward `0.9·task − 0.1·coherence` is `{"task": 0.9, "coherence_penalty": -0.1}`.

Human feedback enters through `HumanFeedbackSource`: anything with `rating(episode_key) -> float | None`.
The web layer fills one from annotators' ratings; the CLI reads a JSONL file (`JsonlHumanFeedback`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agents.spec import REWARD_PRESETS

# The only term names a reward may use (the team spec's contract). What each one measures:
REWARD_TERMS: dict[str, str] = {
    "task": "task reward from the environment (e.g. 1 for a ticket resolved exactly, else 0)",
    "entropy_bonus": "mean policy entropy of the agents' action distributions, in nats",
    "coherence_penalty": "share of an agent's steps that contradict the team's final decision",
    "collaboration_bonus": "share of agents whose messages were attended to by another agent",
    "communication_cost": "messages sent per step",
    "novelty": "information novelty of the messages (1 - max cosine to earlier messages)",
    "consensus": "agreement between the agents' decisions (share voting with the majority)",
    "shaping": "sum of the environment's own shaping rewards for the step",
    "human_feedback": "annotators' rating of the episode, in [0, 1] (0 when none is available)",
    "transfer_score": "task score on the transfer (held-out) split",
    "domain_performance": "task score on the current training domain",
}

# The presets (docs/design.md#reward-presets) live once, as data, in agents.spec: {preset: {term: {phase: w}}}.
PRESETS: dict[str, dict[str, dict[str, float]]] = {
    name: {term: dict(weights) for term, weights in table.items()} for name, table in REWARD_PRESETS.items()
}

WEIGHT_LIMIT = 10.0


class RewardSpecError(ValueError):
    """A reward specification the composer cannot use; the message says what to change."""


@runtime_checkable
class HumanFeedbackSource(Protocol):
    """Where annotators' ratings come from. The web layer implements this over its Feedback table."""

    def rating(self, episode_key: str) -> float | None:
        """The rating of one episode in [0, 1], or None when nobody has rated it yet."""
        ...


class NoHumanFeedback:
    """A source with no ratings: the human_feedback term is always 0."""

    def rating(self, episode_key: str) -> float | None:
        """Always None: nobody rates in this run."""
        return None


class JsonlHumanFeedback:
    """Ratings from a JSONL file, one `{"episode_key": str, "rating": number}` per line.

    Several ratings of one episode are averaged (several annotators). Ratings outside [0, 1] are rejected,
    so a 1–5 star scale must be normalised by whoever writes the file.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise RewardSpecError(f"human feedback file {str(self.path)!r} does not exist")
        sums: dict[str, list[float]] = {}
        for lineno, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{self.path}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RewardSpecError(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict) or "episode_key" not in row or "rating" not in row:
                raise RewardSpecError(f'{where}: expected {{"episode_key": ..., "rating": ...}}')
            rating = row["rating"]
            if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not 0 <= rating <= 1:
                raise RewardSpecError(f"{where}: rating must be a number in [0, 1], got {rating!r}")
            sums.setdefault(str(row["episode_key"]), []).append(float(rating))
        self._ratings = {key: sum(v) / len(v) for key, v in sums.items()}

    def __len__(self) -> int:
        return len(self._ratings)

    def rating(self, episode_key: str) -> float | None:
        """The mean rating of `episode_key`, or None when the file has none."""
        return self._ratings.get(episode_key)


def _check_weight(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RewardSpecError(f"{where}: weight must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise RewardSpecError(f"{where}: weight must be finite, got {value!r}")
    if abs(value) > WEIGHT_LIMIT:
        raise RewardSpecError(f"{where}: weight {value} is outside [-{WEIGHT_LIMIT:g}, {WEIGHT_LIMIT:g}]")
    return float(value)


@dataclass
class RewardComposer:
    """Reward = Σ_term weight[term][phase] · value[term]. Built from a spec, a preset or a plain dict."""

    weights: dict[str, dict[str, float]]
    human_feedback: HumanFeedbackSource = field(default_factory=NoHumanFeedback)

    def __post_init__(self) -> None:
        checked: dict[str, dict[str, float]] = {}
        if not isinstance(self.weights, Mapping) or not self.weights:
            raise RewardSpecError("reward: needs at least one term with weights")
        for term, per_phase in self.weights.items():
            if term not in REWARD_TERMS:
                raise RewardSpecError(
                    f"reward term {term!r} is unknown; use one of: {', '.join(sorted(REWARD_TERMS))}"
                )
            if not isinstance(per_phase, Mapping):
                raise RewardSpecError(f"reward term {term!r}: weights must map phase name -> number")
            checked[term] = {}
            for phase, w in per_phase.items():
                checked[term][str(phase)] = _check_weight(f"reward term {term!r}, phase {phase!r}", w)
        self.weights = checked

    # ---- construction -------------------------------------------------------------------------------
    @classmethod
    def from_preset(cls, name: str, **kwargs: Any) -> RewardComposer:
        """The composer for a named preset: `phase_rewards` or `hierarchical`."""
        table = PRESETS
        if name not in table:
            raise RewardSpecError(
                f"reward preset {name!r} is unknown; use one of: {', '.join(sorted(table))}"
            )
        return cls({t: dict(w) for t, w in table[name].items()}, **kwargs)

    @classmethod
    def from_spec(cls, reward: Any, **kwargs: Any) -> RewardComposer:
        """Build from a team spec's `reward` section (a dict or the spec's dataclass).

        A preset, when given, comes first; explicit terms then override or add per term.
        """
        doc = reward.to_dict() if hasattr(reward, "to_dict") else _as_dict(reward)
        if not isinstance(doc, Mapping):
            raise RewardSpecError("reward: expected an object with 'preset' and/or 'terms'")
        unknown = set(doc) - {"preset", "terms"}
        if unknown:
            raise RewardSpecError(f"reward: unknown key(s) {sorted(unknown)}; expected 'preset' and 'terms'")
        weights: dict[str, dict[str, float]] = {}
        preset = doc.get("preset")
        if preset is not None:
            weights = {t: dict(w) for t, w in cls.from_preset(preset).weights.items()}
        for i, entry in enumerate(doc.get("terms") or []):
            entry = _as_dict(entry)
            if not isinstance(entry, Mapping) or "term" not in entry:
                raise RewardSpecError(
                    f"reward.terms[{i}]: expected {{'term': name, 'weights': {{phase: w}}}}"
                )
            per_phase = entry.get("weights", {})
            if not isinstance(per_phase, Mapping):
                raise RewardSpecError(f"reward.terms[{i}].weights: must map phase name -> number")
            weights.setdefault(entry["term"], {}).update(per_phase)
        if not weights:
            raise RewardSpecError("reward: give a preset or at least one term")
        return cls(weights, **kwargs)

    # ---- use --------------------------------------------------------------------------------------------
    def weight(self, term: str, phase: str) -> float:
        """The weight of `term` in `phase` (0 when the spec does not mention the pair)."""
        return self.weights.get(term, {}).get(phase, 0.0)

    def breakdown(
        self, values: Mapping[str, float], phase: str, episode_key: str | None = None
    ) -> dict[str, float]:
        """Each term's weighted contribution. Missing term values count as 0; unknown names are errors.

        `human_feedback` is read from the feedback source when `episode_key` is given and the caller did
        not measure it itself.
        """
        for name in values:
            if name not in REWARD_TERMS:
                raise RewardSpecError(f"reward value for unknown term {name!r}")
        values = dict(values)
        if (
            "human_feedback" not in values
            and episode_key is not None
            and self.weight("human_feedback", phase)
        ):
            rating = self.human_feedback.rating(episode_key)
            values["human_feedback"] = 0.0 if rating is None else float(rating)
        out = {}
        for term in self.weights:
            w = self.weight(term, phase)
            if w:
                out[term] = w * float(values.get(term, 0.0))
        return out

    def compose(self, values: Mapping[str, float], phase: str, episode_key: str | None = None) -> float:
        """The scalar reward for measured term `values` in evolution `phase`."""
        return float(sum(self.breakdown(values, phase, episode_key).values()))

    def to_dict(self) -> dict[str, Any]:
        """The spec form: {"preset": None, "terms": [{"term", "weights"}]}."""
        return {"preset": None, "terms": [{"term": t, "weights": dict(w)} for t, w in self.weights.items()]}


def _as_dict(obj: Any) -> Any:
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    return obj
