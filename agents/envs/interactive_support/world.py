"""The interactive support world: customers with hidden facts, personas, and a knowledge base, drawn from
generators by *family* (a product line), so that whole families can be held out of training and selection.

A customer has three hidden facts — the problem (`PROBLEMS`), what they want (`GOALS`) and an order number —
and a persona: how clearly they write (clarity), how often their wording points at the wrong problem
(misleading), and how many steps they wait before giving up (patience). Their first message states each
fact or not; what the team reads of it is a noisy belief (a softmax over noisy scores that peaks on the
truth when the fact was stated clearly, sometimes on a confusable neighbour). Asking the right question
reveals a fact exactly.

The knowledge base for a query problem holds the current article, sometimes an outdated one and sometimes
a contradicting one (both give a wrong solution), and related articles of neighbouring problems. A search
shows three candidates ranked by a search engine that favours old, much-linked articles; each shows a
relevance score, a verified mark and an age cue that are informative but not exact.

Everything is drawn from a `numpy.random.Generator`, so an episode is a pure function of its seed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

PROBLEMS = ("damaged", "wrong_item", "late", "billing", "account", "warranty")
GOALS = ("refund", "replacement", "guidance")
NEEDS_ORDER = ("refund", "replacement")  # a remedy that can only be carried out with the order number
FACTS = ("order", "problem", "goal")
ARTICLE_KINDS = ("current", "outdated", "contradicting", "related")
CANDIDATES = 3
"""Articles a search shows."""

# Problems a customer's wording confuses (a misleading message points at the neighbour).
CONFUSABLE = {
    "damaged": "wrong_item",
    "wrong_item": "damaged",
    "late": "billing",
    "billing": "account",
    "account": "billing",
    "warranty": "damaged",
}


@dataclass(frozen=True)
class Family:
    """A product line's customers and knowledge base: the generator's parameters."""

    name: str
    clarity: float  # mean clarity of the first message (0: says nothing, 1: states everything)
    misleading: float  # chance a clearly stated problem is worded like its confusable neighbour
    outdated: float  # chance the knowledge base still holds an outdated article for the problem
    contradicting: float  # chance it holds a contradicting one
    patience: float  # mean steps the customer waits before giving up
    problem_prior: tuple[float, ...]  # how often each problem occurs
    goal_prior: tuple[float, ...]  # how often each goal occurs
    # the "uncertain" world only (see `WORLDS`):
    hurried: float = 0.0  # share of customers writing about something time-critical (little patience)
    stale_after: float = 1.0  # article age (0 new .. 1 old) past which the line's policy has changed


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("apparel", 0.55, 0.15, 0.35, 0.25, 11.0, (3, 4, 2, 1, 1, 1), (3, 4, 2), 0.25, 0.6),
        Family("electronics", 0.45, 0.20, 0.45, 0.20, 10.0, (3, 1, 2, 1, 1, 4), (2, 4, 3), 0.30, 0.3),
        Family("home", 0.60, 0.10, 0.30, 0.30, 12.0, (4, 2, 3, 1, 1, 2), (3, 3, 2), 0.20, 0.75),
        Family("grocery", 0.50, 0.25, 0.25, 0.15, 9.0, (3, 3, 4, 2, 1, 0.5), (5, 2, 2), 0.40, 0.5),
        # held out: never trained on nor used to choose a procedure
        Family("travel", 0.40, 0.25, 0.50, 0.25, 10.0, (1, 1, 4, 4, 2, 1), (3, 1, 4), 0.45, 0.35),
        Family("software", 0.50, 0.20, 0.40, 0.35, 11.0, (0.5, 0.5, 1, 4, 5, 2), (3, 1, 5), 0.25, 0.3),
    )
}
TRAIN_FAMILIES = ("apparel", "electronics", "home", "grocery")
HELDOUT_FAMILIES = ("travel", "software")
SPLITS = ("train", "dev", "heldout")
"""train and dev draw the training families (dev from its own seeds, to choose procedures and checkpoints);
heldout draws the held-out families only."""
SPLIT_SEED_OFFSET = {"train": 0, "dev": 1_000_003, "heldout": 2_000_029}
WORLDS = ("basic", "uncertain")
"""basic: the world as first built. uncertain (the 2026-12-05 redesign; parameters set once, reasoning in
the study): customers split into hurried ones (patience 3-7 steps, a tone cue that reads them noisily, and
their mood drops faster while they wait) and patient ones; an article's date tells whether it is outdated
only relative to when its product line's policy last changed (``Family.stale_after``, never observed), and
the search listing shows a noisy last-edited date; the deep search shows the exact date, not the verdict."""


@dataclass(frozen=True)
class Persona:
    """How one customer writes and waits (hidden from the team; seen through noisy cues)."""

    clarity: float
    misleading: float
    patience: int
    hurried: bool = False


@dataclass(frozen=True)
class Customer:
    """One customer: the family, persona, hidden facts, which facts the first message states, and the
    team's first reading of it (beliefs over problems and goals)."""

    family: str
    persona: Persona
    problem: int
    goal: int
    order_number: str
    stated: tuple[bool, bool, bool]  # order, problem, goal said in the first message
    problem_belief: np.ndarray
    goal_belief: np.ndarray
    clarity_cue: float  # a noisy reading of how clear the message is (length, hedges)
    patience_cue: float  # a noisy reading of the customer's patience (tone)

    @property
    def needs_order(self) -> bool:
        return GOALS[self.goal] in NEEDS_ORDER


@dataclass(frozen=True)
class Article:
    """One knowledge-base article as a search shows it, with its hidden kind."""

    problem: int
    kind: str  # ARTICLE_KINDS
    relevance: float
    verified: bool
    age: float  # 0 new .. 1 old (cue; exact after a deep search)
    listed_age: float | None = None  # the uncertain world's noisy last-edited date (None: ``age`` is shown)

    @property
    def correct_for(self) -> int | None:
        """The problem this article solves correctly (None: outdated or contradicting)."""
        return self.problem if self.kind in ("current", "related") else None


def _prior(weights: tuple[float, ...], rng: np.random.Generator) -> int:
    p = np.asarray(weights, dtype=float)
    return int(rng.choice(len(p), p=p / p.sum()))


def _belief(
    truth: int, size: int, clear: float, misled_to: int | None, rng: np.random.Generator
) -> np.ndarray:
    """What the team reads of a fact: softmax of noisy scores that favour the truth (or, misled, a neighbour)
    in proportion to how clearly it was said."""
    scores = rng.normal(0.0, 0.6, size)
    scores[truth if misled_to is None else misled_to] += 3.0 * clear
    if misled_to is not None:
        scores[truth] += 1.5 * clear  # the truth stays plausible in a misleading message
    exp = np.exp(scores - scores.max())
    return (exp / exp.sum()).astype(np.float32)


def draw_family(split: str, rng: np.random.Generator) -> Family:
    names = HELDOUT_FAMILIES if split == "heldout" else TRAIN_FAMILIES
    return FAMILIES[names[int(rng.integers(len(names)))]]


def draw_customer(family: Family, rng: np.random.Generator, world: str = "basic") -> Customer:
    """A customer of ``family``: persona, hidden facts and their first message's reading (``world``: see
    `WORLDS`; the basic world's draws are unchanged)."""
    clarity = float(np.clip(rng.normal(family.clarity, 0.25), 0.0, 1.0))
    persona = Persona(
        clarity=clarity,
        misleading=float(np.clip(rng.normal(family.misleading, 0.08), 0.0, 0.6)),
        patience=int(np.clip(round(rng.normal(family.patience, 2.5)), 5, 18)),
    )
    problem, goal = _prior(family.problem_prior, rng), _prior(family.goal_prior, rng)
    stated = tuple(bool(rng.random() < clarity) for _ in FACTS)
    misled = stated[1] and rng.random() < persona.misleading
    neighbour = PROBLEMS.index(CONFUSABLE[PROBLEMS[problem]])
    clear_problem = clarity if stated[1] else 0.1 * clarity
    clear_goal = clarity if stated[2] else 0.1 * clarity
    customer = Customer(
        family=family.name,
        persona=persona,
        problem=problem,
        goal=goal,
        order_number=f"#{int(rng.integers(10_000, 99_999))}",
        stated=stated,  # type: ignore[arg-type]
        problem_belief=_belief(problem, len(PROBLEMS), clear_problem, neighbour if misled else None, rng),
        goal_belief=_belief(goal, len(GOALS), clear_goal, None, rng),
        clarity_cue=float(np.clip(clarity + rng.normal(0, 0.2), 0.0, 1.0)),
        patience_cue=float(np.clip(persona.patience / 18 + rng.normal(0, 0.12), 0.0, 1.0)),
    )
    return customer if world == "basic" else _uncertain_persona(customer, family, rng)


def _uncertain_persona(customer: Customer, family: Family, rng: np.random.Generator) -> Customer:
    """The uncertain world's patience: hurried (3-7 steps) or patient (8-18), read from the tone of the
    message with noise (cue means 0.3 and 0.6, sd 0.15: right about four times in five at a 0.45 cut)."""
    hurried = bool(rng.random() < family.hurried)
    mean, low, high = (5.0, 3, 7) if hurried else (family.patience + 1.0, 8, 18)
    patience = int(np.clip(round(rng.normal(mean, 1.5 if hurried else 2.5)), low, high))
    cue = float(np.clip(rng.normal(0.3 if hurried else 0.6, 0.15), 0.0, 1.0))
    persona = replace(customer.persona, patience=patience, hurried=hurried)
    return replace(customer, persona=persona, patience_cue=cue)


def _article(
    problem: int, kind: str, query: int, rng: np.random.Generator, stale_after: float | None = None
) -> Article:
    """One candidate; ``stale_after`` (the uncertain world) dates it against its line's last policy change."""
    on_topic = problem == query
    relevance = rng.normal(0.75 if on_topic else 0.45, 0.12)
    verified = rng.random() < {"current": 0.8, "outdated": 0.3, "contradicting": 0.4, "related": 0.6}[kind]
    if stale_after is None:
        age = {"current": rng.uniform(0.0, 0.6), "outdated": rng.uniform(0.35, 1.0)}.get(
            kind, rng.uniform(0, 1)
        )
        return Article(problem, kind, float(np.clip(relevance, 0.0, 1.0)), bool(verified), float(age))
    # outdated: written before the change; current: after it, or (one in four) an older one re-confirmed
    evergreen = rng.random() < 0.25
    age = {
        "current": rng.uniform(0.0, 1.0 if evergreen else stale_after),
        "outdated": rng.uniform(stale_after, 1.0),
    }.get(kind, rng.uniform(0, 1))
    listed = float(np.clip(age + rng.normal(0, 0.15), 0.0, 1.0))
    return Article(problem, kind, float(np.clip(relevance, 0.0, 1.0)), bool(verified), float(age), listed)


def search(
    family: Family,
    query: int,
    rng: np.random.Generator,
    exclude: tuple[Article, ...] = (),
    world: str = "basic",
) -> tuple[Article, ...]:
    """The three candidates a search for problem ``query`` shows, best-ranked first: the current article,
    maybe an outdated and a contradicting one, filled with related articles of other problems. The engine
    ranks by relevance plus a bonus for old, much-linked articles, so an outdated one often comes first.
    ``exclude``: articles the team already found wrong (a reopened ticket) are not shown again."""
    stale = None if world == "basic" else family.stale_after
    pool = [_article(query, "current", query, rng, stale)]
    if rng.random() < family.outdated:
        pool.append(_article(query, "outdated", query, rng, stale))
    if rng.random() < family.contradicting:
        pool.append(_article(query, "contradicting", query, rng, stale))
    excluded = {(a.problem, a.kind) for a in exclude}
    pool = [a for a in pool if (a.problem, a.kind) not in excluded]
    others = [p for p in range(len(PROBLEMS)) if p != query]
    while len(pool) < CANDIDATES + 1:  # always three to choose from, whatever was set aside
        pool.append(_article(int(rng.choice(others)), "related", query, rng, stale))
    ranked = sorted(pool, key=lambda a: a.relevance + 0.25 * a.age + rng.normal(0, 0.08), reverse=True)
    return tuple(ranked[:CANDIDATES])
