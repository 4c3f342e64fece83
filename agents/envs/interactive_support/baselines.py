"""The procedures a support lead would script for the interactive support team, behaviour cloning of one,
and the evaluation every arm (rules, imitation, a trained team) is measured by.

A `Procedure` is a rule per agent, read off the observation only (what a deployed team sees):

- triage clarifies ``always`` (asks the problem and the goal, then the order number when the remedy needs
  it), ``when_unsure`` (asks a fact only while the team's belief in it is below ``threshold``; first routes
  to the knowledge agent, and asks when that agent is not confident), or ``never`` (routes at once; the
  order number is still asked for a refund or replacement); it escalates once ``escalate_after`` steps
  have passed (None: never);
- the knowledge agent picks the top-ranked article, with ``article="verified"`` the first verified one, or
  with ``article="dated"`` checks every candidate's effective date first (``search_deeper``, a step the
  customer waits) and picks the most relevant one the dates show current (else the first verified one);
  under ``when_unsure`` it sends the conversation back to triage while its confidence (belief in the
  problem × the top article's relevance) is below ``threshold`` and something is still unasked;
- the resolver answers with the remedy the team believes the customer wants;
- the reviewer checks ``always``, ``never``, or ``when_unsure`` (when the knowledge agent's confidence is
  below ``threshold``);
- ``hurry`` (None: off) treats a customer whose patience cue reads below it as hurried: triage asks only a
  fact whose belief is below ``threshold`` (and the order number a remedy needs), the knowledge agent skips
  the date check and picks by the listed dates, the reviewer sends unchecked; ``age_cutoff`` is the age
  below which a date counts as current (in the basic world the deep search's dates are 0 or 1, so it only
  matters in the uncertain one).

`NAMED` holds the four the issue asks for and `grid()` every combination; `choose_on_dev` picks the best by
the team's return on dev customers (never the held-out families). `clone` fits a small network per agent to
a procedure's decisions (behaviour cloning). `evaluate` plays any joint policy on a split's customers and
returns resolution, satisfaction, escalations, cost and the team's return; `compare_arms` is that for a set
of named arms on dev and held-out customers (what `bench/verdicts.py` reads).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from agents.envs.interactive_support.env import ACTIONS, AGENTS, DEFAULTS, OBS, InteractiveSupportEnv
from agents.envs.interactive_support.world import CANDIDATES, GOALS, NEEDS_ORDER, PROBLEMS

Policy = Callable[[Mapping[str, Any]], dict[str, int]]
CLARIFY = ("always", "when_unsure", "never")
REVIEW = ("always", "when_unsure", "never")
ARTICLE = ("top", "verified", "dated")
DEV_EPISODES = 1000
EVAL_FIRST_SEED = 1_000_000
"""Evaluation customers are seeds from here on: never the ones a procedure was chosen on (0 ..)."""


@dataclass(frozen=True)
class Procedure:
    """A scripted support procedure (see the module docstring)."""

    clarify: str = "when_unsure"
    threshold: float = 0.6
    article: str = "top"
    review: str = "always"
    escalate_after: int | None = None
    hurry: float | None = None
    age_cutoff: float = 0.5

    @property
    def name(self) -> str:
        esc = "" if self.escalate_after is None else f",escalate@{self.escalate_after}"
        hurry = "" if self.hurry is None else f",hurry<{self.hurry}"
        dates = "" if self.age_cutoff == 0.5 else f",current<{self.age_cutoff}"
        return f"clarify={self.clarify}@{self.threshold},article={self.article},review={self.review}{esc}{hurry}{dates}"

    def _hurried(self, v: np.ndarray) -> bool:
        return self.hurry is not None and v[OBS["patience_cue"]] < self.hurry

    def __call__(self, observations: Mapping[str, Any]) -> dict[str, int]:
        return {agent: self.act(agent, obs["observation"]) for agent, obs in observations.items()}

    def act(self, agent: str, v: np.ndarray) -> int:
        """The action index ``agent`` takes on observation vector ``v``."""
        turn = {"triage": "triage", "knowledge": "knowledge", "resolve": "resolver", "review": "reviewer"}
        if not any(v[OBS[f"phase_{p}"]] > 0.5 and who == agent for p, who in turn.items()):
            return 0  # not its turn (or the customer is away): wait
        return ACTIONS[agent].index(getattr(self, f"_{agent}")(v))

    # ---- each agent's rule

    def _triage(self, v: np.ndarray) -> str:
        if self.escalate_after is not None and v[OBS["step"]] * DEFAULTS["max_steps"] >= self.escalate_after:
            return "escalate"
        problem_sure, goal_sure = _belief_max(v, "problem"), _belief_max(v, "goal")
        asked_problem, asked_goal = v[OBS["problem_asked"]] > 0.5, v[OBS["goal_asked"]] > 0.5
        if self._hurried(v):  # ask only what the message left unclear
            if problem_sure < self.threshold and not asked_problem:
                return "ask_problem"
            if goal_sure < self.threshold and not asked_goal:
                return "ask_goal"
        elif self.clarify == "always":
            if not asked_problem:
                return "ask_problem"
            if not asked_goal:
                return "ask_goal"
        elif self.clarify == "when_unsure":
            searched = v[OBS["article_1_relevance"]] > 0 and v[OBS["query_is_belief"]] > 0.5
            if searched or self.threshold >= 1.0:  # back from the knowledge agent: ask the least sure
                unsure = [
                    (sure, fact)
                    for sure, fact, asked in (
                        (problem_sure, "ask_problem", asked_problem),
                        (goal_sure, "ask_goal", asked_goal),
                    )
                    if not asked
                ]
                if unsure:
                    return min(unsure)[1]
            elif problem_sure < self.threshold and not asked_problem:
                return "ask_problem"
            elif goal_sure < self.threshold and not asked_goal:
                return "ask_goal"
        if _needs_order(v) and v[OBS["order_known"]] < 0.5:
            return "ask_order"
        return "route"

    def _knowledge(self, v: np.ndarray) -> str:
        unasked = v[OBS["problem_asked"]] < 0.5 or v[OBS["goal_asked"]] < 0.5
        if self.clarify == "when_unsure" and unasked and _confidence(v) < self.threshold:
            return "ask_more"
        if self.article == "dated":
            if v[OBS["deep_searched"]] < 0.5 and not self._hurried(v):
                return "search_deeper"
            current = [
                k
                for k in range(1, CANDIDATES + 1)
                if v[OBS[f"article_{k}_relevance"]] > 0 and v[OBS[f"article_{k}_age"]] < self.age_cutoff
            ]
            if current:  # after a deep search the age entry is exact (basic: 0 current, 1 outdated or wrong)
                return f"pick_{max(current, key=lambda k: v[OBS[f'article_{k}_relevance']])}"
        if self.article in ("verified", "dated"):
            for k in range(1, CANDIDATES + 1):
                if v[OBS[f"article_{k}_verified"]] > 0.5:
                    return f"pick_{k}"
        return "pick_1"

    def _resolver(self, v: np.ndarray) -> str:
        return GOALS[int(np.argmax(_beliefs(v, "goal")))]

    def _reviewer(self, v: np.ndarray) -> str:
        if self._hurried(v):
            return "send"
        if self.review == "always" or (self.review == "when_unsure" and _confidence(v) < self.threshold):
            return "check"
        return "send"


def _beliefs(v: np.ndarray, fact: str) -> np.ndarray:
    names = PROBLEMS if fact == "problem" else GOALS
    start = OBS[f"{fact}_belief_{names[0]}"]
    return v[start : start + len(names)]


def _belief_max(v: np.ndarray, fact: str) -> float:
    return float(_beliefs(v, fact).max())


def _needs_order(v: np.ndarray) -> bool:
    return GOALS[int(np.argmax(_beliefs(v, "goal")))] in NEEDS_ORDER


def _confidence(v: np.ndarray) -> float:
    """The knowledge agent's confidence: belief in the problem × the picked (else top) article's relevance."""
    picked = next((k for k in range(1, CANDIDATES + 1) if v[OBS[f"picked_{k}"]] > 0.5), 1)
    return _belief_max(v, "problem") * float(v[OBS[f"article_{picked}_relevance"]])


NAMED: dict[str, Procedure] = {
    "always_clarify": Procedure(clarify="always", review="never"),
    "confident_else_clarify": Procedure(clarify="when_unsure", threshold=0.6, review="never"),
    "always_review": Procedure(clarify="when_unsure", threshold=0.6, review="always"),
    "escalate_after_8": Procedure(clarify="when_unsure", threshold=0.6, review="always", escalate_after=8),
}
"""The procedures the issue names: always clarify first; answer when the knowledge agent is confident,
else clarify; always review before sending; escalate after N steps."""


def grid(world: str = "basic") -> list[Procedure]:
    """Every procedure a support lead might write from these rules (the search `choose_on_dev` runs). The
    uncertain world's grid adds the patience cue (``hurry``: off or 0.45, midway between the hurried and
    the patient customers' cue means) and the date cut-off (0.3 .. 0.75) for the procedures that read dates;
    it leaves out escalating after 10 steps (never chosen in the basic world, and later than a hurried
    customer waits)."""
    base = [
        Procedure(clarify, threshold, article, review, escalate)
        for clarify, threshold, article, review, escalate in itertools.product(
            CLARIFY, (0.4, 0.5, 0.6, 0.7, 0.8), ARTICLE, REVIEW, (None, 6, 10)
        )
        if not (clarify != "when_unsure" and review != "when_unsure" and threshold != 0.6)
    ]
    if world == "basic":
        return base
    return [
        replace(p, hurry=hurry, age_cutoff=cutoff)
        for p, hurry, cutoff in itertools.product(base, (None, 0.45), (0.3, 0.45, 0.6, 0.75))
        if (p.article == "dated" or cutoff == 0.45) and p.escalate_after != 10  # escalating late never won
    ]


# ------------------------------------------------------------------------------------------------ evaluation


def evaluate(
    policy: Policy,
    split: str = "heldout",
    episodes: int = 500,
    first_seed: int = EVAL_FIRST_SEED,
    params: Mapping[str, Any] | None = None,
    record: list | None = None,
) -> dict[str, float]:
    """Play ``policy`` once per customer of ``split`` (seeds ``first_seed`` ..) and average: resolution
    (solved by the team, reopened ones included), first-contact resolution, satisfaction (0 when the
    customer left), escalations, reopenings, cost (steps, a human's handling priced in steps), the team's
    return, and per conversation the questions, repeated questions and checks. ``record`` receives each
    conversation's (decisions, info) when given."""
    env = InteractiveSupportEnv(**{**dict(params or {}), "split": split})
    totals: dict[str, float] = {}
    for k in range(episodes):
        observations, _ = env.reset(seed=first_seed + k)
        total_reward, info = 0.0, {}
        while env.agents:
            observations, rewards, _, _, infos = env.step(policy(observations))
            total_reward += next(iter(rewards.values()))
            info = next(iter(infos.values()))
        row = {
            "resolution": float(info["resolved"]),
            "first_contact": float(info["first_contact"]),
            "satisfaction": float(info["satisfaction"] or 0.0),
            "escalations": float(info["escalated"]),
            "reopened": float(info["reopened"]),
            "abandoned": float(info["outcome"] in ("abandoned", "failed")),
            "cost": float(info["cost"]),
            "return": total_reward,
            "questions": float(info["questions"]),
            "repeats": float(info["repeats"]),
            "checks": float(info["checks"]),
        }
        for key, value in row.items():
            totals[key] = totals.get(key, 0.0) + value
        if record is not None:
            record.append((list(env.decisions), info, env.customer))
    return {key: value / episodes for key, value in totals.items()}


def choose_on_dev(
    candidates: Iterable[Procedure] | None = None,
    episodes: int = DEV_EPISODES,
    params: Mapping[str, Any] | None = None,
) -> tuple[Procedure, list[dict[str, Any]]]:
    """The procedure with the best team return on ``episodes`` dev customers, and every candidate's row."""
    world = dict(params or {}).get("world", "basic")
    rows = [
        {"procedure": p.name, **asdict(p), **evaluate(p, "dev", episodes, first_seed=0, params=params)}
        for p in (grid(world) if candidates is None else list(candidates))
    ]
    best = max(rows, key=lambda r: r["return"])
    fields = set(asdict(Procedure()))
    return Procedure(**{k: best[k] for k in fields}), rows


# ------------------------------------------------------------------------------------- behaviour cloning


def demonstrations(
    procedure: Procedure,
    episodes: int,
    split: str = "train",
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
) -> dict[str, tuple]:
    """(observations [M, D], actions [M]) per agent: the steps where it was the one to act."""
    env = InteractiveSupportEnv(**{**dict(params or {}), "split": split})
    seen: dict[str, tuple[list, list]] = {a: ([], []) for a in AGENTS}
    for k in range(episodes):
        observations, _ = env.reset(seed=seed + k)
        while env.agents:
            actions = procedure(observations)
            for agent, obs in observations.items():
                if obs["action_mask"][0] == 0:  # its turn ("wait" is masked)
                    seen[agent][0].append(obs["observation"])
                    seen[agent][1].append(actions[agent])
            observations, *_ = env.step(actions)
    return {a: (np.asarray(x, dtype=np.float32), np.asarray(y)) for a, (x, y) in seen.items()}


def clone(
    procedure: Procedure,
    episodes: int = 2000,
    epochs: int = 60,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
) -> Policy:
    """Behaviour cloning of ``procedure``: one small network per agent fitted to its decisions on
    ``episodes`` training customers; acts greedily among the valid actions."""
    import torch

    torch.manual_seed(seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: more threads only contend
    try:
        nets = _fit(procedure, episodes, epochs, seed, params)
    finally:
        torch.set_num_threads(threads)

    def act(observations: Mapping[str, Any]) -> dict[str, int]:
        chosen = {}
        with torch.no_grad():
            for agent, obs in observations.items():
                logits = nets[agent](torch.as_tensor(obs["observation"]))
                logits[torch.as_tensor(obs["action_mask"]) == 0] = -torch.inf
                chosen[agent] = int(logits.argmax())
        return chosen

    return act


def _fit(
    procedure: Procedure, episodes: int, epochs: int, seed: int, params: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One small network per agent fitted (cross-entropy) to ``procedure``'s decisions."""
    import torch
    from torch import nn

    nets: dict[str, nn.Module] = {}
    for agent, (x, y) in demonstrations(procedure, episodes, seed=seed, params=params).items():
        net = nn.Sequential(nn.Linear(x.shape[1], 64), nn.Tanh(), nn.Linear(64, len(ACTIONS[agent])))
        optimiser = torch.optim.Adam(net.parameters(), lr=3e-3)
        xs, ys = torch.as_tensor(x), torch.as_tensor(y, dtype=torch.long)
        for _ in range(epochs):
            for batch in torch.randperm(len(xs)).split(256):
                loss = nn.functional.cross_entropy(net(xs[batch]), ys[batch])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        nets[agent] = net.eval()
    return nets


def compare_arms(
    arms: Mapping[str, Policy],
    episodes: int = 500,
    first_seed: int = EVAL_FIRST_SEED,
    params: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, float]]:
    """Each arm on the same customers: its metrics on dev-family customers (``resolution``, ``satisfaction``,
    ``escalations``, ``cost``, …) and ``heldout_resolution`` (plus ``heldout_*``) on the held-out families."""
    out = {}
    for name, policy in arms.items():
        seen = evaluate(policy, "dev", episodes, first_seed, params)
        held = evaluate(policy, "heldout", episodes, first_seed, params)
        out[name] = {**seen, **{f"heldout_{k}": v for k, v in held.items()}}
    return out


BEST = Procedure(clarify="always", threshold=0.4, article="dated", review="when_unsure")
"""The procedure `choose_on_dev` chose among the 261 of `grid()` on 400 dev customers (recorded so the rules
teacher and the fallback need no search): ask problem and goal (and the order number a remedy needs), check
the articles' dates before picking, review only when unsure (at 0.4 almost never). Before the grid had the
``dated`` move its best was clarify always, first verified article, always review (0.81 resolution)."""


BEST_UNCERTAIN = Procedure(
    clarify="always", threshold=0.7, article="dated", review="when_unsure", hurry=0.45, age_cutoff=0.75
)
"""The uncertain world's choice among the 696 of `grid("uncertain")` (every one on 100 dev customers, the
best 30 again on 400; dev return 0.699, resolution 0.843): for a customer whose tone reads hurried, ask only
what the first message left unclear (belief below 0.7), pick by the listed dates and send unchecked; else
as `BEST`, counting a date below 0.75 as current."""
SHIPPED = {"basic": BEST, "uncertain": BEST_UNCERTAIN}
"""The procedure chosen on dev for each world (`world.WORLDS`): the rules teacher and fallback there."""


class ScriptedSupportTeam:
    """A procedure as the rule-scripted team (`agents.envs.scripted`): the rules teacher and fallback; by
    default the one chosen for the world of ``params`` (the environment's params)."""

    def __init__(self, procedure: Procedure | None = None, params: Mapping[str, Any] | None = None) -> None:
        self.procedure = procedure or SHIPPED[dict(params or {}).get("world", "basic")]

    def act(self, agent: str, observation: Mapping[str, Any]) -> int:
        return self.procedure.act(agent, np.asarray(observation["observation"]))

    def actions(self, observations: Mapping[str, Any]) -> dict[str, int]:
        return self.procedure(observations)


def decision_differences(
    policy: Policy,
    procedure: Procedure | None = None,
    split: str = "heldout",
    episodes: int = 300,
    first_seed: int = EVAL_FIRST_SEED,
    examples: int = 3,
    params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Where ``policy`` departs from ``procedure`` (default `BEST`): it plays the customers, and at every
    step the procedure is asked what it would do on the same observation. Returns per agent the count of
    its turns and of each (scripted → chosen) disagreement, and a few example conversations (the customer's
    hidden facts, the disagreements and the outcome)."""
    procedure = procedure or BEST
    env = InteractiveSupportEnv(**{**dict(params or {}), "split": split})
    turns = dict.fromkeys(AGENTS, 0)
    differ: dict[str, int] = {}
    shown: list[dict[str, Any]] = []
    for k in range(episodes):
        observations, _ = env.reset(seed=first_seed + k)
        mine: list[str] = []
        while env.agents:
            actions = policy(observations)
            for agent, obs in observations.items():
                if obs["action_mask"][0] != 0:
                    continue  # not its turn
                turns[agent] += 1
                scripted = ACTIONS[agent][procedure.act(agent, obs["observation"])]
                chosen = ACTIONS[agent][actions[agent]]
                if scripted != chosen:
                    key = f"{agent}: {scripted} -> {chosen}"
                    differ[key] = differ.get(key, 0) + 1
                    mine.append(f"step {env.steps + 1} {key}")
            observations, _, _, _, infos = env.step(actions)
        if mine and len(shown) < examples:
            c = env.customer
            shown.append(
                {
                    "customer": f"{c.family}: {PROBLEMS[c.problem]}, wants {GOALS[c.goal]}, first message "
                    f"states {', '.join(f for f, s in zip(('order', 'problem', 'goal'), c.stated, strict=True) if s) or 'nothing'}",
                    "differences": mine,
                    "outcome": next(iter(infos.values()))["outcome"],
                }
            )
    ranked = dict(sorted(differ.items(), key=lambda kv: -kv[1]))
    return {"turns": turns, "differences": ranked, "examples": shown}
