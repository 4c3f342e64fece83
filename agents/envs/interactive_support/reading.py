"""What the team reads of a real customer's message: the live counterpart of the simulator's first reading.

The simulator gives the team a noisy belief over problems and goals that peaks on the truth when the
customer stated it clearly, a clarity cue, and the order number read exactly when it was written. A real
message has no hidden facts to draw that from, so the same numbers are read off the text:

- **problem / goal belief**: the backbone's sentence vector of the message against the vectors of a few
  plain descriptions of each problem and goal (`PROBLEM_TEXTS`, `GOAL_TEXTS`, written from what each of the
  environment's problems is, never fitted to test messages); each class scores its best-matching description,
  and the belief is a softmax of those scores. A fact is *stated* when its best class scores at least
  `STATED_FLOOR`, leads the next class by `STATED_MARGIN` and beats the message's match with a vague
  opening (`GENERIC_TEXTS`: "I have a problem with my order" states no problem); a stated fact's belief
  is sharp (temperature `SHARP_T`), an unstated one's nearly flat (`VAGUE_T`), as the simulator's belief
  is when a fact was not said;
- **order number**: four or more digits (optionally after ``#``), read exactly;
- **clarity cue**: the share of the three facts the message states (the simulator's clarity is the chance
  each fact is stated); the **patience cue** is neutral (0.5): nothing in a message says how long its
  writer will wait;
- **accepted** (a reply to an answer): nearer the descriptions of a solved problem than of an unsolved one.

``embed(texts)`` is any function returning unit-length sentence vectors (the team's backbone).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from agents.envs.interactive_support.world import GOALS, PROBLEMS

PROBLEM_TEXTS: dict[str, tuple[str, ...]] = {
    "damaged": (
        "the item arrived damaged",
        "my product came broken, cracked or torn",
        "the parcel was smashed",
        "it was already broken when the delivery came",
    ),
    "wrong_item": (
        "I received the wrong item",
        "this is not what I ordered",
        "you sent the wrong size or colour",
    ),
    "late": ("my parcel has not arrived yet", "the delivery is late", "the shipment is delayed"),
    "billing": (
        "I was charged twice",
        "the amount on my bill is wrong",
        "a problem with my payment or invoice",
    ),
    "account": (
        "I cannot log in to my account",
        "I need to reset my password",
        "my account is locked",
        "I cannot sign in to the website or the app",
    ),
    "warranty": (
        "it stopped working after a few months",
        "is this repair covered by the warranty",
        "the device is faulty, I want to make a warranty claim",
        "the appliance has developed a fault during normal use",
        "it malfunctions and does not work the way it should any more",
        "the product is defective and needs to be repaired",
    ),
}
"""Each problem in several general wordings of what it is — for a product fault, that it developed in use
(warranty) rather than on the way (damaged) — not a list of symptoms: with only the warranty's words for
it ("stopped working", "repair", "claim"), a fault the customer describes by its symptom ("my coffee machine
leaks") matched no description well, and the belief followed the wording the message shared with another
problem's ("my product came broken", "my account is locked")."""
GOAL_TEXTS: dict[str, tuple[str, ...]] = {
    "refund": ("I want a refund", "please give me my money back", "refund the payment"),
    "replacement": (
        "please send me a replacement",
        "I want a new one instead",
        "exchange it for another one",
    ),
    "guidance": ("what should I do", "how do I fix this, I need advice", "please explain how this works"),
}
GENERIC_TEXTS = (
    "I have a problem with my order",
    "something is wrong, can you help me",
    "hello, I need help",
)
"""A vague opening: a fact counts as stated only when the message matches it better than one of these."""
ACCEPT_TEXTS = ("yes, that solves it, thank you", "great, thanks, that works", "perfect, problem solved")
REJECT_TEXTS = ("no, that's not it", "no, that does not solve my problem", "that is not what I asked for")

STATED_FLOOR = 0.35
STATED_MARGIN = 0.03
SHARP_T = 0.03
VAGUE_T = 0.3
ORDER_NUMBER = re.compile(r"#?\b(\d{4,})\b")


@dataclass(frozen=True)
class Reading:
    """One message as the team reads it (see the module docstring); plain numbers, JSON-ready."""

    problem_belief: list[float]
    goal_belief: list[float]
    problem_stated: bool
    goal_stated: bool
    order_number: str | None
    clarity: float
    accepted: bool
    problem_score: float
    goal_score: float

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def stated(self) -> tuple[bool, bool, bool]:
        return self.order_number is not None, self.problem_stated, self.goal_stated


class MessageReader:
    """Reads messages through ``embed`` against the descriptions' vectors (embedded once)."""

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray]):
        self.embed = embed
        self._problems = self._vectors([PROBLEM_TEXTS[p] for p in PROBLEMS])
        self._goals = self._vectors([GOAL_TEXTS[g] for g in GOALS])
        self._accept = self._vectors([ACCEPT_TEXTS, REJECT_TEXTS])
        self._generic = self._vectors([GENERIC_TEXTS])

    def _vectors(self, groups: list[tuple[str, ...]]) -> list[np.ndarray]:
        return [np.asarray(self.embed(list(texts)), dtype=np.float32) for texts in groups]

    @staticmethod
    def _scores(vector: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
        return np.array([float((group @ vector).max()) for group in groups])

    @staticmethod
    def _belief(scores: np.ndarray, vague: float) -> tuple[list[float], bool]:
        ranked = np.sort(scores)[::-1]
        clear = ranked[0] >= STATED_FLOOR and ranked[0] - ranked[1] >= STATED_MARGIN
        stated = bool(clear and ranked[0] > vague)
        z = (scores - scores.max()) / (SHARP_T if stated else VAGUE_T)
        p = np.exp(z) / np.exp(z).sum()
        return [round(float(x), 6) for x in p], stated

    def read(self, text: str) -> Reading:
        vector = np.asarray(self.embed([text]), dtype=np.float32)[0]
        problem_scores, goal_scores = self._scores(vector, self._problems), self._scores(vector, self._goals)
        (vague,) = self._scores(vector, self._generic)
        problem_belief, problem_stated = self._belief(problem_scores, vague)
        goal_belief, goal_stated = self._belief(goal_scores, vague)
        match = ORDER_NUMBER.search(text)
        order = f"#{match.group(1)}" if match else None
        accept, reject = self._scores(vector, self._accept)
        return Reading(
            problem_belief=problem_belief,
            goal_belief=goal_belief,
            problem_stated=problem_stated,
            goal_stated=goal_stated,
            order_number=order,
            clarity=round(sum((order is not None, problem_stated, goal_stated)) / 3, 4),
            accepted=bool(accept > reject),
            problem_score=round(float(problem_scores.max()), 4),
            goal_score=round(float(goal_scores.max()), 4),
        )
