"""One customer turn of a live conversation: the interactive support team with a real person as the customer.

`LiveSupportEnv` is `InteractiveSupportEnv` with the simulated customer taken out. An episode is one
*turn*: ``reset(options={"conversation": state or None, "message": reading})`` restores the conversation
(`state`, a plain dict this environment wrote at the end of the previous turn) and applies the customer's
message as the team reads it (`reading.Reading.as_dict()`), then the team acts, step by step, until it
needs the customer again:

- triage asks for a fact → the turn ends with a question (the customer's next message answers it);
- the reviewer sends a solution → the turn ends with the answer (the customer accepts it, or says what is
  wrong and the conversation is reopened, as in the simulator);
- triage escalates → the conversation ends (a person takes over);
- the customer's patience (team steps) runs out or the step limit is reached → the conversation ends.

What the simulator draws from hidden facts comes from the message instead: the first message gives the
beliefs, the stated facts and the clarity cue; the answer to a question reveals that fact (the answer's
most likely class, as a question reveals the fact exactly in the simulator); an order number is read
exactly wherever it is written. There is no hidden truth to judge a solution by, so the reviewer's check
tests the solution against what the customer has said (the article's problem and the remedy against the
team's beliefs, the order number for a refund or replacement) and the knowledge base's own record of an
article (outdated and contradicting articles are known to the knowledge base, not to the team). The
knowledge base is the simulator's generator for the deployment's product families (MASE ships no real
articles for this template). The conversation's outcome is the customer's: accepted, escalated, left.

``info["live"]`` carries the new ``state`` and the turn's ``event`` (question / answer / escalated / left),
which is what the serving layer stores and words (`words.reply_text`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.envs.interactive_support.env import InteractiveSupportEnv
from agents.envs.interactive_support.world import (
    FACTS,
    FAMILIES,
    GOALS,
    NEEDS_ORDER,
    PROBLEMS,
    Article,
    Customer,
    Persona,
    draw_family,
)

LIVE_PATIENCE = 11
"""Team steps a live customer waits (the training families' mean patience, rounded up)."""
REASON_WORDS = ("problem", "article", "remedy", "order")


def _article(a: Article) -> dict:
    return {
        "problem": a.problem,
        "kind": a.kind,
        "relevance": a.relevance,
        "verified": a.verified,
        "age": a.age,
    }


def _unarticle(d: Mapping[str, Any]) -> Article:
    return Article(
        int(d["problem"]), str(d["kind"]), float(d["relevance"]), bool(d["verified"]), float(d["age"])
    )


class LiveSupportEnv(InteractiveSupportEnv):
    """The team's side of a live conversation, one customer turn per episode (see the module docstring)."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        options = dict(options or {})
        reading = options.get("message")
        if not isinstance(reading, Mapping):
            raise ValueError("a live turn needs options['message']: the reading of the customer's message")
        state = options.get("conversation")
        if state:
            self._restore(state)
        else:
            self._open(reading, int(options.get("seed", seed or 0)))
        self.event: dict[str, Any] | None = None
        self._episode_rng = np.random.default_rng([self.seed, self.turn])
        self.turn += 1
        self._hear(reading, first=not state)
        self.agents = [] if self.outcome is not None else list(self.possible_agents)
        info = self._info()
        return self._observations(), {a: dict(info) for a in self.possible_agents}

    # ---- the conversation's state ---------------------------------------------------------------------
    def _open(self, reading: Mapping[str, Any], seed: int) -> None:
        """A new conversation from its first message."""
        self.seed, self.turn = seed, 0
        self.family = draw_family(self.p.split, np.random.default_rng(seed))
        self.known, self.order_number = [False, False, False], None
        self.problem_belief = np.asarray(reading["problem_belief"], dtype=np.float32)
        self.goal_belief = np.asarray(reading["goal_belief"], dtype=np.float32)
        stated = (
            reading["order_number"] is not None,
            bool(reading["problem_stated"]),
            bool(reading["goal_stated"]),
        )
        self.customer = self._customer(stated, float(reading["clarity"]))
        self.phase, self.candidates, self.query, self.deep = "triage", (), None, False
        self.picked, self.remedy = None, None
        self.rejected, self.reason, self.reopened = False, None, False
        self.failed: tuple[Article, ...] = ()
        self.satisfaction, self.steps, self.waited, self.away = 1.0, 0, 0, 0
        self.patience = LIVE_PATIENCE
        self.counts = dict.fromkeys(("questions", "repeats", "checks", "catches", "sends", "searches"), 0)
        self.outcome, self.first_contact = None, False
        self.decisions, self.transcript = [], []
        self.awaiting: str | None = None
        self.sent_with_order = False

    def _customer(self, stated: tuple[bool, bool, bool], clarity: float) -> Customer:
        """The customer as far as the team can tell (facts: the beliefs' most likely classes)."""
        return Customer(
            family=self.family.name,
            persona=Persona(clarity=clarity, misleading=0.0, patience=LIVE_PATIENCE),
            problem=int(np.argmax(self.problem_belief)),
            goal=int(np.argmax(self.goal_belief)),
            order_number=self.order_number or "",
            stated=stated,
            problem_belief=np.zeros(len(PROBLEMS), dtype=np.float32),
            goal_belief=np.zeros(len(GOALS), dtype=np.float32),
            clarity_cue=clarity,
            patience_cue=0.5,
        )

    def export(self) -> dict[str, Any]:
        """The conversation's state as plain JSON (what `_restore` reads back next turn)."""
        return {
            "seed": self.seed, "turn": self.turn, "family": self.family.name,
            "stated": list(self.customer.stated), "clarity": self.customer.clarity_cue,
            "known": list(self.known), "order_number": self.order_number,
            "problem_belief": [float(x) for x in self.problem_belief],
            "goal_belief": [float(x) for x in self.goal_belief],
            "phase": self.phase, "candidates": [_article(a) for a in self.candidates], "query": self.query,
            "deep": self.deep, "picked": self.picked, "remedy": self.remedy, "rejected": self.rejected,
            "reason": self.reason, "reopened": self.reopened, "failed": [_article(a) for a in self.failed],
            "satisfaction": self.satisfaction, "steps": self.steps, "waited": self.waited,
            "patience": self.patience, "counts": dict(self.counts), "outcome": self.outcome,
            "first_contact": self.first_contact, "awaiting": self.awaiting,
            "sent_with_order": self.sent_with_order,
        }  # fmt: skip

    def _restore(self, s: Mapping[str, Any]) -> None:
        self.seed, self.turn, self.family = int(s["seed"]), int(s["turn"]), FAMILIES[s["family"]]
        self.known = [bool(x) for x in s["known"]]
        self.order_number = s.get("order_number")
        self.problem_belief = np.asarray(s["problem_belief"], dtype=np.float32)
        self.goal_belief = np.asarray(s["goal_belief"], dtype=np.float32)
        self.customer = self._customer(tuple(bool(x) for x in s["stated"]), float(s["clarity"]))  # type: ignore[arg-type]
        self.phase, self.query, self.deep = s["phase"], s["query"], bool(s["deep"])
        self.candidates = tuple(_unarticle(a) for a in s["candidates"])
        self.picked, self.remedy = s["picked"], s["remedy"]
        self.rejected, self.reason, self.reopened = bool(s["rejected"]), s["reason"], bool(s["reopened"])
        self.failed = tuple(_unarticle(a) for a in s["failed"])
        self.satisfaction, self.steps, self.waited = (
            float(s["satisfaction"]),
            int(s["steps"]),
            int(s["waited"]),
        )
        self.away, self.patience, self.counts = 0, int(s["patience"]), dict(s["counts"])
        self.outcome, self.first_contact, self.awaiting = (
            s["outcome"],
            bool(s["first_contact"]),
            s["awaiting"],
        )
        self.sent_with_order = bool(s.get("sent_with_order"))
        self.decisions, self.transcript = [], []

    # ---- the customer's message -----------------------------------------------------------------------
    def _hear(self, reading: Mapping[str, Any], first: bool) -> None:
        """Apply the customer's message: the answer to a question, the word on an answer, or more facts."""
        awaiting, self.awaiting = self.awaiting, None
        if reading.get("order_number"):
            self.order_number, self.known[0] = str(reading["order_number"]), True
        if awaiting == "feedback":
            if reading.get("accepted"):
                self.first_contact = not self.reopened
                self._finish("resolved")
                self.event = {"kind": "accepted"}
                return
            self._reopen(reading)
            return
        # the fact asked for is what the answer says; another fact a later message states counts only while
        # the customer has not said it yet (an earlier answer is not overwritten by a passing word)
        asked = awaiting.removeprefix("answer:") if awaiting else None
        if asked == "problem" or (not first and reading["problem_stated"] and not self.known[1]):
            self._reveal_as(1, reading["problem_belief"])
        if asked == "goal" or (not first and reading["goal_stated"] and not self.known[2]):
            self._reveal_as(2, reading["goal_belief"])
        self.customer = self._customer(self.customer.stated, self.customer.clarity_cue)

    def _reveal_as(self, fact: int, belief: list[float]) -> None:
        """The customer said ``fact``: the team knows it as the reading's most likely class."""
        self.known[fact] = True
        size = len(PROBLEMS) if FACTS[fact] == "problem" else len(GOALS)
        one_hot = np.eye(size, dtype=np.float32)[int(np.argmax(belief))]
        if FACTS[fact] == "problem":
            if self.query is not None and int(np.argmax(one_hot)) != self.query:
                self.candidates, self.query = (), None  # a new problem: search again
            self.problem_belief = one_hot
        else:
            self.goal_belief = one_hot

    def _reopen(self, reading: Mapping[str, Any]) -> None:
        """The answer did not solve it: what was wrong is read off the reply (a problem or remedy other than
        the one answered, an order number given now, else the article), as the simulator's reopening."""
        if self.reopened:  # a second wrong answer: the customer gives up, as in the simulator
            self._worse(1.0)
            self._finish("failed")
            self.event = {"kind": "failed"}
            return
        article = self.candidates[self.picked] if self.picked is not None and self.candidates else None
        said_problem = int(np.argmax(reading["problem_belief"])) if reading["problem_stated"] else None
        said_goal = int(np.argmax(reading["goal_belief"])) if reading["goal_stated"] else None
        if said_problem is not None and article is not None and said_problem != article.problem:
            reason = "problem"
            self._reveal_as(1, reading["problem_belief"])
        elif said_goal is not None and said_goal != self.remedy:
            reason = "remedy"
            self._reveal_as(2, reading["goal_belief"])
        elif reading.get("order_number") and not self.sent_with_order:
            reason = "order"
        else:
            reason = "article"
            if article is not None:
                self.failed = (*self.failed, article)
            self.candidates, self.query = (), None
        self.picked, self.remedy = None, None
        self.reopened, self.rejected, self.reason = True, False, reason
        self._worse(0.3)
        self.patience = self.waited + max(4, LIVE_PATIENCE // 2)
        self.phase = "triage"
        self.transcript.append(f"customer reopens: the {reason} was wrong")

    # ---- the team's turn ------------------------------------------------------------------------------
    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        observations, rewards, terms, truncs, infos = super().step(actions)
        if self.event is not None and self.agents:  # the team needs the customer: this turn is over
            self.agents = []
            terms = dict.fromkeys(terms, True)
            infos = {a: self._info() for a in infos}
        return observations, rewards, terms, truncs, infos

    def _triage(self, name: str) -> float:
        if name.startswith("ask_"):
            fact = FACTS.index(name.removeprefix("ask_"))
            self.counts["questions"] += 1
            self._worse(self.p.question_cost)
            if self.known[fact] or self.customer.stated[fact]:
                self.counts["repeats"] += 1
                self._worse(self.p.repeat_penalty)
            self.awaiting = f"answer:{FACTS[fact]}"
            self.event = {"kind": "question", "fact": FACTS[fact]}
            return 0.0
        reward = super()._triage(name)
        if name == "escalate":
            self.event = {"kind": "escalated"}
        return reward

    def _what_is_wrong(self) -> str | None:
        """What a check finds against what the customer said and the knowledge base's record."""
        article = self.candidates[self.picked]  # type: ignore[index]
        if article.problem != int(np.argmax(self.problem_belief)):
            return "problem"
        if article.correct_for is None:
            return "article"
        if self.remedy != int(np.argmax(self.goal_belief)):
            return "remedy"
        if GOALS[self.remedy] in NEEDS_ORDER and not self.known[0]:
            return "order"
        return None

    def _send(self, wrong: str | None) -> float:
        """The solution goes to the customer; whether it is right is theirs to say (next turn)."""
        self.counts["sends"] += 1
        article = self.candidates[self.picked]  # type: ignore[index]
        self.sent_with_order = self.known[0]
        self.phase, self.awaiting = "away", "feedback"
        self.event = {
            "kind": "answer", "problem": PROBLEMS[article.problem], "remedy": GOALS[self.remedy or 0],
            "order_number": self.order_number, "verified": article.verified,
            "checked": self.decisions[-1:] == [("reviewer", "check")],
        }  # fmt: skip
        return 0.0

    def _learn(self, wrong: str) -> None:
        """A check caught a mistake: the article is set aside, or the team searches again for the problem it
        believes; unlike the simulator's reviewer, this one cannot know a fact the customer has not said."""
        if wrong == "article":
            self.failed = (*self.failed, self.candidates[self.picked])  # type: ignore[index]
        if wrong in ("article", "problem"):
            self.candidates, self.query = (), None
        self.picked, self.remedy = None, None

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        if self.outcome == "abandoned":  # patience or the step limit, whatever the last step asked
            self.event, self.awaiting = {"kind": "left"}, None
        info["live"] = {"state": self.export(), "event": self.event}
        return info

    def state(self) -> np.ndarray:
        raise NotImplementedError("a live conversation has no hidden facts: no global state to train on")
