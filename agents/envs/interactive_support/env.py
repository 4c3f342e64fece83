"""InteractiveSupportEnv: a support team holds a conversation with a simulated customer (PettingZoo ParallelEnv).

A customer (`world.draw_customer`) opens with a message that may leave out or blur the problem, what they
want and their order number. Four agents take turns by phase; the agent whose turn it is acts, the others
can only ``wait`` (their ``action_mask`` says so):

- ``triage`` (phase triage): ask the customer for the order number, the problem or the goal (a customer
  turn; asking what they already said annoys them), ``route`` to the knowledge agent (which searches the
  knowledge base for the problem the team believes most likely), or ``escalate`` to a human.
- ``knowledge`` (phase knowledge): pick one of the three articles the search shows, ``search_deeper``
  (check every candidate's effective date: the age cues become exact; the customer waits) or ``ask_more``
  (back to triage).
- ``resolver`` (phase resolve): write the solution from the picked article with a remedy (refund,
  replacement or guidance), or go ``back`` to the knowledge agent.
- ``reviewer`` (phase review): ``send`` the solution as it is, or ``check`` it first (costs a step and
  effort; a wrong solution is caught with probability ``catch_rate`` and comes back to triage with the
  reason; one that passes is sent).

A solution is right when the article is the current one for the customer's true problem, the remedy is
what they want and, for a refund or replacement, the team has the order number. A wrong solution closes
the conversation for now; ``reopen_delay`` steps later the customer comes back (−``reopen_cost``, their
satisfaction drops, the part that was wrong is now known); a second wrong one loses them. A customer whose
patience runs out leaves (−``abandon_penalty``). The team reward (the same for every agent):
−``step_cost`` per step, −``check_cost`` per check, +``resolve_reward`` + ``satisfaction_weight`` ×
satisfaction on resolution, ``satisfaction_weight`` × satisfaction − ``escalation_cost`` + ``resolve_reward``
on escalation (the human resolves it, at their cost).

The ``world`` param picks the customers and knowledge base: ``basic`` (as first built) or ``uncertain``
(`world.WORLDS`: hurried customers read from their tone, articles dated against their product line's last
policy change; the observation then ends with the product line, `UNCERTAIN_FIELDS`).

Observations are float vectors (``observation_kind = "vector"``: no text backbone; `observation_fields`
names the entries) with the agent's ``action_mask``; `state()` adds the hidden facts (privileged, for a
centralised critic at training time). ``info`` carries resolution, satisfaction, escalation, cost and the
decisions taken, so trainers and `baselines.evaluate` need no internals.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents.envs.interactive_support.world import (
    CANDIDATES,
    FACTS,
    GOALS,
    NEEDS_ORDER,
    PROBLEMS,
    SPLIT_SEED_OFFSET,
    SPLITS,
    TRAIN_FAMILIES,
    WORLDS,
    Article,
    Customer,
    Family,
    draw_customer,
    draw_family,
    search,
)
from agents.envs.params import EnvParams, param

AGENTS = ("triage", "knowledge", "resolver", "reviewer")
ACTIONS: dict[str, tuple[str, ...]] = {
    "triage": ("wait", "ask_order", "ask_problem", "ask_goal", "route", "escalate"),
    "knowledge": ("wait", "pick_1", "pick_2", "pick_3", "search_deeper", "ask_more"),
    "resolver": ("wait", "refund", "replacement", "guidance", "back"),
    "reviewer": ("wait", "send", "check"),
}
PHASES = ("triage", "knowledge", "resolve", "review", "away")
"""Whose turn it is; "away": a wrong solution was sent and the customer has not come back yet."""
TURN = {"triage": "triage", "knowledge": "knowledge", "resolve": "resolver", "review": "reviewer"}
REASONS = ("problem", "article", "remedy", "order")
"""What was wrong with a solution (what a reviewer's catch or a reopening tells the team)."""


def _cost(default: float, help: str) -> Any:
    return param(default, help, low=0.0, high=100.0)


@dataclass(frozen=True)
class InteractiveSupportParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    split: str = param(
        "train",
        "Which customers: train (the training product families), dev (the same families, other "
        "customers: for choosing procedures and checkpoints) or heldout (families never trained on).",
        choices=SPLITS,
    )
    world: str = param(
        "basic",
        "Which world: basic (as first built) or uncertain (hurried customers read from their tone; "
        "articles dated against each product line's last policy change).",
        choices=WORLDS,
    )
    max_steps: int = param(24, "Steps per conversation before it is cut off.", low=6, high=200)
    step_cost: float = _cost(0.02, "Cost of every step the team works.")
    check_cost: float = _cost(0.05, "Extra cost of a reviewer's check.")
    catch_rate: float = param(0.9, "Chance a check catches a wrong solution.", low=0.0, high=1.0)
    resolve_reward: float = _cost(1.0, "Value of a resolved conversation.")
    satisfaction_weight: float = _cost(0.5, "Weight of the customer's final satisfaction (0..1).")
    escalation_cost: float = _cost(1.2, "Cost of handing the conversation to a human.")
    handoff_wait: float = param(
        0.3, "Satisfaction lost waiting in the human queue after an escalation.", low=0.0, high=1.0
    )
    reopen_cost: float = _cost(0.8, "Cost when a wrong solution comes back (reopened).")
    abandon_penalty: float = _cost(0.5, "Cost when the customer gives up.")
    reopen_delay: int = param(2, "Steps before a customer with a wrong solution comes back.", low=0, high=20)
    question_cost: float = param(0.05, "Satisfaction lost per question.", low=0.0, high=1.0)
    repeat_penalty: float = param(
        0.2, "Satisfaction lost when asked what they already said.", low=0.0, high=1.0
    )
    wait_cost: float = param(0.02, "Satisfaction lost per step the customer waits.", low=0.0, high=1.0)
    human_cost_steps: int = param(
        10, "A human's handling, in team steps (the cost metric's escalation price).", low=0, high=1000
    )


DEFAULTS = InteractiveSupportParams.defaults()
PARAMETERS = InteractiveSupportParams.describe()

OBSERVATION_FIELDS: tuple[str, ...] = (
    *(f"role_{a}" for a in AGENTS),
    *(f"phase_{p}" for p in PHASES),
    *(f"problem_belief_{p}" for p in PROBLEMS),
    *(f"goal_belief_{g}" for g in GOALS),
    "order_known",
    "problem_asked",
    "goal_asked",
    "clarity_cue",
    "patience_cue",
    "waited",
    "questions",
    "mood_cue",
    *(f"article_{k}_{f}" for k in range(1, CANDIDATES + 1) for f in ("relevance", "verified", "age")),
    "deep_searched",
    "query_is_belief",
    *(f"picked_{k}" for k in range(1, CANDIDATES + 1)),
    *(f"remedy_{g}" for g in GOALS),
    "rejected",
    *(f"reason_{r}" for r in REASONS),
    "reopened",
    "step",
)
"""What each entry of an observation vector means (what `baselines` and the study read)."""
UNCERTAIN_FIELDS = tuple(f"family_{f}" for f in TRAIN_FAMILIES)
"""The uncertain world appends the product line (a held-out line reads all zeros: one the team never saw)."""
OBS = {name: i for i, name in enumerate(OBSERVATION_FIELDS)}
FAMILY_OBS = {name: len(OBSERVATION_FIELDS) + i for i, name in enumerate(UNCERTAIN_FIELDS)}
STATE_SIZE = len(OBSERVATION_FIELDS) - len(AGENTS) + len(PROBLEMS) + len(GOALS) + len(FACTS) + CANDIDATES + 2


class InteractiveSupportEnv(ParallelEnv):
    """Triage, knowledge, resolver and reviewer hold a support conversation with a simulated customer."""

    metadata = {"name": "interactive_support_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    parameters = PARAMETERS
    observation_kind = "vector"  # the trainer passes the vectors through, no text backbone

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        self.p = InteractiveSupportParams.build("interactive_support", params)
        self.fields = OBSERVATION_FIELDS + (UNCERTAIN_FIELDS if self.p.world == "uncertain" else ())
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._rng = np.random.default_rng(SPLIT_SEED_OFFSET[self.p.split])
        self._episode_rng = self._rng
        self.transcript: list[str] = []
        self._start(self._rng)

    @staticmethod
    def expected_agents(params: Mapping[str, Any] | None = None) -> list[str]:
        """The team's fixed agents."""
        return list(AGENTS)

    @staticmethod
    def validate_params(params: Any) -> list:
        """Every problem in ``params`` (`InteractiveSupportParams.problems`)."""
        return InteractiveSupportParams.problems(params)

    @functools.cache  # noqa: B019 - one space object per agent, as PettingZoo expects
    def observation_space(self, agent: str) -> spaces.Dict:
        return spaces.Dict(
            {
                "action_mask": spaces.MultiBinary(len(ACTIONS[agent])),
                "observation": spaces.Box(0.0, 1.0, shape=(len(self.fields),), dtype=np.float32),
            }
        )

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(len(ACTIONS[agent]))

    def action_names(self, agent: str) -> tuple[str, ...]:
        return ACTIONS[agent]

    # ------------------------------------------------------------------------------------------ episodes

    def _start(self, rng: np.random.Generator) -> None:
        self.family: Family = draw_family(self.p.split, rng)
        self.customer: Customer = draw_customer(self.family, rng, self.p.world)
        c = self.customer
        self.known = [c.stated[0], False, False]  # an order number in the message is read exactly
        self.problem_belief = c.problem_belief.copy()
        self.goal_belief = c.goal_belief.copy()
        self.phase = "triage"
        self.candidates: tuple[Article, ...] = ()
        self.query: int | None = None
        self.deep = False
        self.picked: int | None = None
        self.remedy: int | None = None
        self.rejected, self.reason, self.reopened = False, None, False
        self.failed: tuple[Article, ...] = ()
        self.satisfaction, self.steps, self.waited, self.away = 1.0, 0, 0, 0
        self.patience = c.persona.patience
        self.counts = dict.fromkeys(("questions", "repeats", "checks", "catches", "sends", "searches"), 0)
        self.outcome: str | None = None
        self.first_contact = False
        self.decisions: list[tuple[str, str]] = []
        self.transcript = [f"customer ({c.family}): first message states {self._stated_text()}"]

    def _stated_text(self) -> str:
        said = [f for f, s in zip(FACTS, self.customer.stated, strict=True) if s]
        return ", ".join(said) if said else "none of order, problem, goal"

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new customer (``seed``: the same customer for the same seed and split)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed + SPLIT_SEED_OFFSET[self.p.split])
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        self._episode_rng = np.random.default_rng(int(self._rng.integers(2**63)))
        self._start(self._episode_rng)
        self.agents = list(self.possible_agents)
        info = self._info()
        return self._observations(), {a: dict(info) for a in self.agents}

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """The acting agent's action moves the conversation; every other agent's action is ignored."""
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.steps += 1
        reward = 0.0
        if self.phase == "away":
            reward += self._away_step()
        else:
            self.waited += 1
            reward -= self.p.step_cost
            actor = TURN[self.phase]
            name = ACTIONS[actor][int(actions.get(actor, 0))]
            if name == "wait" or not self._mask(actor)[ACTIONS[actor].index(name)]:
                name = self._default(actor)  # an invalid or idle choice: the acting agent's cautious move
            self.decisions.append((actor, name))
            reward += getattr(self, f"_{actor}")(name)
        if self.outcome is None and self.phase != "away" and self.waited > self.patience:
            self._finish("abandoned")
            reward -= self.p.abandon_penalty
        truncated = self.outcome is None and self.steps >= self.p.max_steps
        if truncated:
            self.outcome = "abandoned"
            self.satisfaction = 0.0
            reward -= self.p.abandon_penalty
        terminated = self.outcome is not None and not truncated
        observations, info, live = self._observations(), self._info(), list(self.agents)
        if terminated or truncated:
            self.agents = []
        return (
            observations,
            dict.fromkeys(live, float(reward)),
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {a: dict(info) for a in live},
        )

    @staticmethod
    def _default(actor: str) -> str:
        return {"triage": "route", "knowledge": "pick_1", "resolver": "back", "reviewer": "check"}[actor]

    # ---------------------------------------------------------------------------------- each agent's turn

    def _triage(self, name: str) -> float:
        if name == "escalate":
            self._worse(self.p.handoff_wait)
            self._finish("escalated")
            sat = self.satisfaction
            return self.p.resolve_reward - self.p.escalation_cost + self.p.satisfaction_weight * sat
        if name == "route":
            query = int(np.argmax(self.problem_belief))
            if query != self.query or not self.candidates:
                self.candidates = search(self.family, query, self._episode_rng, self.failed, self.p.world)
                self.query, self.deep, self.picked = query, False, None
                self.counts["searches"] += 1
            self._annoy(self.p.wait_cost)
            self.phase = "knowledge"
            return 0.0
        fact = FACTS.index(name.removeprefix("ask_"))
        self.counts["questions"] += 1
        self._annoy(self.p.question_cost)
        already = self.known[fact] or self.customer.stated[fact]
        if already:
            self.counts["repeats"] += 1
            self._worse(self.p.repeat_penalty)
        self._reveal(fact)
        self.transcript.append(f"triage asks for the {FACTS[fact]}" + (" (already said)" if already else ""))
        return 0.0

    def _reveal(self, fact: int) -> None:
        self.known[fact] = True
        if FACTS[fact] == "problem":
            self.problem_belief = np.eye(len(PROBLEMS), dtype=np.float32)[self.customer.problem]
        elif FACTS[fact] == "goal":
            self.goal_belief = np.eye(len(GOALS), dtype=np.float32)[self.customer.goal]

    def _knowledge(self, name: str) -> float:
        if name == "ask_more":
            self.phase = "triage"
        elif name == "search_deeper":
            self.deep = True
            self._annoy(self.p.wait_cost)
        else:
            self.picked = int(name.removeprefix("pick_")) - 1
            self.phase = "resolve"
        return 0.0

    def _resolver(self, name: str) -> float:
        if name == "back":
            self.phase = "knowledge"
        else:
            self.remedy = GOALS.index(name)
            self.phase = "review"
        return 0.0

    def _reviewer(self, name: str) -> float:
        wrong = self._what_is_wrong()
        if name == "check":
            self.counts["checks"] += 1
            self._annoy(self.p.wait_cost)
            if wrong is not None and self._episode_rng.random() < self.p.catch_rate:
                self.counts["catches"] += 1
                self.rejected, self.reason = True, wrong
                self._learn(wrong)
                self.phase = "triage"
                self.transcript.append(f"reviewer catches a wrong {wrong}")
                return -self.p.check_cost
            return self._send(wrong) - self.p.check_cost
        return self._send(wrong)

    def _what_is_wrong(self) -> str | None:
        """The first thing wrong with the solution in hand (None: it is right)."""
        c, article = self.customer, self.candidates[self.picked]  # type: ignore[index]
        if article.problem != c.problem:
            return "problem"
        if article.correct_for is None:
            return "article"
        if self.remedy != c.goal:
            return "remedy"
        if GOALS[c.goal] in NEEDS_ORDER and not self.known[0]:
            return "order"
        return None

    def _learn(self, wrong: str) -> None:
        """What the team learns from a catch or a reopening: the article is set aside and the facts behind
        the mistake are known (the customer says them, or the reviewer checked them)."""
        if wrong == "article":
            self.failed = (*self.failed, self.candidates[self.picked])  # type: ignore[index]
            self.candidates, self.query = (), None
        elif wrong == "problem":
            self._reveal(1)
            self.candidates, self.query = (), None
        else:
            self._reveal(0 if wrong == "order" else 2)
        self.picked, self.remedy = None, None

    def _send(self, wrong: str | None) -> float:
        self.counts["sends"] += 1
        self.transcript.append(
            f"team sends {GOALS[self.remedy or 0]} per article on {PROBLEMS[self.candidates[self.picked].problem]}"
        )  # type: ignore[index]
        if wrong is None:
            self.first_contact = not self.reopened
            self._finish("resolved")
            return self.p.resolve_reward + self.p.satisfaction_weight * self.satisfaction
        if self.reopened:  # the second wrong answer: the customer leaves
            self._worse(1.0)
            self._finish("failed")
            return -self.p.reopen_cost
        self.phase, self.away, self.reason = "away", 0, wrong
        return 0.0

    def _away_step(self) -> float:
        """A step while the customer tries the wrong solution; after ``reopen_delay`` they come back."""
        self.away += 1
        if self.away < self.p.reopen_delay:
            return 0.0
        self.reopened, self.rejected = True, False
        self._learn(self.reason or "article")
        self._worse(0.3)
        self.patience = self.waited + max(4, self.customer.persona.patience // 2)
        self.phase = "triage"
        self.transcript.append(f"customer reopens: the {self.reason} was wrong")
        return -self.p.reopen_cost

    def _worse(self, amount: float) -> None:
        self.satisfaction = max(0.0, self.satisfaction - amount)

    def _annoy(self, amount: float) -> None:
        """A question or a wait: a hurried customer's mood drops twice as fast (the uncertain world)."""
        self._worse(amount * (2.0 if self.customer.persona.hurried else 1.0))

    def _finish(self, outcome: str) -> None:
        self.outcome = outcome
        if outcome in ("abandoned", "failed"):
            self.satisfaction = 0.0
        self.transcript.append(f"outcome: {outcome}")

    # ------------------------------------------------------------------------------------- observations

    def _mask(self, agent: str) -> np.ndarray:
        names = ACTIONS[agent]
        if self.phase == "away" or TURN.get(self.phase) != agent:
            return np.array([n == "wait" for n in names], dtype=np.int8)
        allowed = [n != "wait" for n in names]
        if agent == "knowledge":
            allowed[names.index("search_deeper")] = not self.deep
            for k in range(len(self.candidates) + 1, CANDIDATES + 1):
                allowed[names.index(f"pick_{k}")] = False
        return np.array(allowed, dtype=np.int8)

    def observation_vector(self, agent: str) -> np.ndarray:
        """``agent``'s observation as a vector (entries named by ``self.fields``)."""
        v = np.zeros(len(self.fields), dtype=np.float32)
        v[OBS[f"role_{agent}"]] = 1.0
        v[OBS[f"phase_{self.phase}"]] = 1.0
        v[OBS["problem_belief_damaged"] : OBS["problem_belief_damaged"] + len(PROBLEMS)] = self.problem_belief
        v[OBS["goal_belief_refund"] : OBS["goal_belief_refund"] + len(GOALS)] = self.goal_belief
        v[OBS["order_known"]], v[OBS["problem_asked"]], v[OBS["goal_asked"]] = map(float, self.known)
        v[OBS["clarity_cue"]], v[OBS["patience_cue"]] = self.customer.clarity_cue, self.customer.patience_cue
        v[OBS["waited"]] = min(1.0, self.waited / self.p.max_steps)
        v[OBS["questions"]] = min(1.0, self.counts["questions"] / 3)
        mood = self.satisfaction + self._episode_rng.normal(0, 0.05) if self.outcome is None else 0.0
        v[OBS["mood_cue"]] = float(np.clip(mood, 0.0, 1.0))
        for k, article in enumerate(self.candidates, start=1):
            age = self._age_seen(article)
            v[OBS[f"article_{k}_relevance"]] = article.relevance
            v[OBS[f"article_{k}_verified"]], v[OBS[f"article_{k}_age"]] = float(article.verified), age
        v[OBS["deep_searched"]] = float(self.deep)
        v[OBS["query_is_belief"]] = float(self.query == int(np.argmax(self.problem_belief)))
        if self.picked is not None:
            v[OBS[f"picked_{self.picked + 1}"]] = 1.0
        if self.remedy is not None:
            v[OBS[f"remedy_{GOALS[self.remedy]}"]] = 1.0
        v[OBS["rejected"]] = float(self.rejected)
        if self.reason is not None and (self.rejected or self.reopened):
            v[OBS[f"reason_{self.reason}"]] = 1.0
        v[OBS["reopened"]] = float(self.reopened)
        v[OBS["step"]] = min(1.0, self.steps / self.p.max_steps)
        if f"family_{self.family.name}" in self.fields:
            v[FAMILY_OBS[f"family_{self.family.name}"]] = 1.0
        return v

    def _age_seen(self, article: Article) -> float:
        """The age entry: basic — the age cue, after a deep search whether the article is wrong (1) or not;
        uncertain — the listed (noisy) date, after a deep search the exact date (its verdict is not shown)."""
        if self.p.world == "basic":
            return float(article.correct_for is None) if self.deep else article.age
        return article.age if self.deep or article.listed_age is None else article.listed_age

    def _observations(self) -> dict[str, dict]:
        return {
            a: {"action_mask": self._mask(a), "observation": self.observation_vector(a)} for a in self.agents
        }

    def state(self) -> np.ndarray:
        """The global state: what the team observes (without the role) plus the hidden facts — the true
        problem and goal, which facts the first message stated, which candidates are right, the customer's
        patience and clarity (privileged: for the centralised critic at training time)."""
        c = self.customer
        seen = self.observation_vector(AGENTS[0])[len(AGENTS) :]
        right = [float(a.problem == c.problem and a.correct_for is not None) for a in self.candidates]
        hidden = np.concatenate(
            [
                np.eye(len(PROBLEMS))[c.problem],
                np.eye(len(GOALS))[c.goal],
                np.asarray(c.stated, dtype=float),
                right + [0.0] * (CANDIDATES - len(right)),
                [c.persona.patience / 18, c.persona.clarity],
            ]
        )
        return np.concatenate([seen, hidden]).astype(np.float32)

    def _info(self) -> dict[str, Any]:
        resolved = self.outcome == "resolved"
        escalated = self.outcome == "escalated"
        return {
            "family": self.customer.family,
            "outcome": self.outcome,
            "success": float(resolved),
            "resolved": resolved,
            "first_contact": self.first_contact,
            "escalated": escalated,
            "reopened": self.reopened,
            "satisfaction": self.satisfaction if self.outcome is not None else None,
            "steps": self.steps,
            "cost": self.steps + self.p.human_cost_steps * int(escalated),
            **self.counts,
        }

    def render(self) -> str | None:
        return "\n".join(self.transcript)

    def close(self) -> None:
        """Nothing to release."""
