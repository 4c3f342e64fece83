"""How much room the interactive support workflow leaves above its rules: a team that knows the hidden facts
(the ceiling no deployed team reaches) and the shipped procedure with each product line's true
policy-change date as its date cut-off (in the uncertain world: what learning the lines' article decay
from outcomes could find; in the basic world the same as the shipped one), on the bench's evaluation
customers. The oracle is played by its own loop, which draws the mood cue's noise fewer times than
`baselines.evaluate`, so its customers see other random draws after their first message.

    python bench/interactive_support_ceiling.py --out F.json [--world basic|uncertain] [--episodes 500]
        [--procedure shipped]

The oracle asks only a fact the first message was misread on (and the order number a remedy needs), picks
a right article when the search shows one, answers with the true goal's remedy and sends unchecked.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.envs.interactive_support.baselines import EVAL_FIRST_SEED, SHIPPED, Procedure, evaluate  # noqa: E402
from agents.envs.interactive_support.env import ACTIONS, FAMILY_OBS, InteractiveSupportEnv  # noqa: E402
from agents.envs.interactive_support.world import FAMILIES, GOALS  # noqa: E402

KEYS = ("resolution", "abandoned", "reopened", "cost", "return")


def oracle_action(env: InteractiveSupportEnv, agent: str) -> str:
    """What a team that sees ``env.customer`` and the articles' kinds does on ``agent``'s turn."""
    c = env.customer
    if agent == "triage":
        if int(np.argmax(env.problem_belief)) != c.problem and not env.known[1]:
            return "ask_problem"
        if int(np.argmax(env.goal_belief)) != c.goal and not env.known[2]:
            return "ask_goal"
        return "ask_order" if c.needs_order and not env.known[0] else "route"
    if agent == "knowledge":
        right = [
            k for k, a in enumerate(env.candidates, 1) if a.problem == c.problem and a.correct_for is not None
        ]
        return f"pick_{right[0]}" if right else "pick_1"
    if agent == "resolver":
        return GOALS[c.goal]
    return "send"


@dataclass(frozen=True)
class LineCutoffs(Procedure):
    """A procedure whose date cut-off is each product line's true ``stale_after`` (read from the
    observation's product-line entries; a line never seen keeps the procedure's own cut-off)."""

    def act(self, agent: str, v: np.ndarray) -> int:
        seen = [name for name, i in FAMILY_OBS.items() if i < len(v) and v[i] > 0.5]
        if not seen:
            return super().act(agent, v)
        cut = FAMILIES[seen[0].removeprefix("family_")].stale_after
        return Procedure(**{**asdict(self), "age_cutoff": cut}).act(agent, v)


def play(
    chooser: Callable[[InteractiveSupportEnv, str], str], world: str, split: str, episodes: int
) -> dict[str, float]:
    """Mean resolution, abandonment, reopening, cost and team return of ``chooser(env, agent) -> action``."""
    env = InteractiveSupportEnv(split=split, world=world)
    totals = dict.fromkeys(KEYS, 0.0)
    for k in range(episodes):
        env.reset(seed=EVAL_FIRST_SEED + k)
        while env.agents:
            actor = next((a for a in env.agents if env._mask(a)[0] == 0), None)  # None: the customer is away
            chosen = {} if actor is None else {actor: ACTIONS[actor].index(chooser(env, actor))}
            _, rewards, _, _, infos = env.step(chosen)
            totals["return"] += next(iter(rewards.values()))
        info = next(iter(infos.values()))
        totals["resolution"] += float(info["resolved"])
        totals["abandoned"] += float(info["outcome"] in ("abandoned", "failed"))
        totals["reopened"] += float(info["reopened"])
        totals["cost"] += float(info["cost"])
    return {key: value / episodes for key, value in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--world", choices=tuple(SHIPPED), default="uncertain")
    parser.add_argument("--episodes", type=int, default=500)
    args = parser.parse_args()
    shipped, params = SHIPPED[args.world], {"world": args.world}
    rules = {"shipped_rules": shipped, "shipped_rules_line_cutoffs": LineCutoffs(**asdict(shipped))}
    result = {
        name: {split: evaluate(rule, split, args.episodes, params=params) for split in ("dev", "heldout")}
        for name, rule in rules.items()
    }  # the bench's own evaluation (the same customers and random draws as its rules arms)
    result["oracle"] = {
        split: play(oracle_action, args.world, split, args.episodes) for split in ("dev", "heldout")
    }
    out = {"interactive_support_ceiling": {"world": args.world, "shipped": shipped.name, "arms": result}}
    Path(args.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
