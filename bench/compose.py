"""Compose freely: customer-service teams of 3, 4 and 5 specialists, each defined by its prompt.

For each intent split (the shipped three specialists; logistics split into "tracking" and "address
changes"; and the mediator split into "returns" and "complaints" as well) the bench builds the team as
data (`Roster`, each specialist owning its intents and told its job in a prompt), then measures:

- ``rules_exact_match``: the rule-scripted team following that roster (`ScriptedTeam` over the keyword
  router tuned on the training tickets) in `CustomerServiceEnv` on the test tickets;
- ``exact_match``: the prompt-conditioned team (`training.prompt_team.PromptTeam`, one network for every
  specialist, reading its prompt) trained on the training tickets for that roster, same env and tickets;
- ``zero_shot_routing`` / ``chance``: before any training, each single-intent test ticket goes to the
  specialist whose prompt is nearest (cosine) to one of its clauses — share routed to the intent's
  owner, against the share a random specialist would get right;
- ``prompt_swap_share``: after training, two specialists swap prompts; of the test tickets one of the two
  handled before, the share the other handles after (handler = the specialist whose prompt claims the
  ticket most strongly).

    python bench/compose.py --out compose.json            # full splits (minutes on a 2-core CPU)
    python bench/compose.py --out compose.json --quick    # 300 train / 100 test tickets, few epochs
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.backbone import Backbone  # noqa: E402
from agents.envs.customer_service.env import CustomerServiceEnv, evaluate  # noqa: E402
from agents.envs.customer_service.roster import Roster  # noqa: E402
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam  # noqa: E402
from agents.envs.customer_service.tickets import load_tickets  # noqa: E402
from training.prompt_team import PromptTeam, PromptTeamConfig, prompt_routing  # noqa: E402

SUPERVISOR = {
    "id": "quality_supervisor",
    "role": "quality_supervisor",
    "prompt": "You are the quality supervisor: approve the draft answer when it is complete, else send it back.",
}
GUIDE = {
    "id": "shopping_guide",
    "role": "shopping_guide",
    "intents": ["product_question", "recommendation"],
    "prompt": "You are the shopping guide. Answer questions about products (specifications, sizes, "
    "materials, compatibility) and recommend what to buy.",
}
LOGISTICS = {
    "id": "logistics",
    "role": "logistics",
    "intents": ["order_tracking", "delivery_delay", "address_change"],
    "prompt": "You are the logistics agent. Track orders and parcels, explain late deliveries and change "
    "delivery addresses.",
}
TRACKING = {
    "id": "tracking",
    "role": "custom",
    "intents": ["order_tracking", "delivery_delay"],
    "prompt": "You track orders: say where the parcel is now and explain deliveries that are late.",
}
ADDRESS = {
    "id": "address_changes",
    "role": "custom",
    "intents": ["address_change"],
    "prompt": "You handle address changes: update or correct the delivery address and redirect parcels.",
}
MEDIATOR = {
    "id": "dispute_mediator",
    "role": "dispute_mediator",
    "intents": ["return_refund", "damaged_item", "complaint"],
    "prompt": "You are the dispute mediator. Process returns and refunds, handle items that arrived "
    "damaged and resolve complaints about the service.",
}
RETURNS = {
    "id": "returns",
    "role": "custom",
    "intents": ["return_refund", "damaged_item"],
    "prompt": "You handle returns and refunds, and items that arrived broken or damaged.",
}
COMPLAINTS = {
    "id": "complaints",
    "role": "custom",
    "intents": ["complaint"],
    "prompt": "You handle complaints: unhappy customers, rude staff, requests to escalate to a manager.",
}
TEAMS = {
    3: ([GUIDE, LOGISTICS, MEDIATOR, SUPERVISOR], ("logistics", "dispute_mediator")),
    4: ([GUIDE, TRACKING, ADDRESS, MEDIATOR, SUPERVISOR], ("tracking", "address_changes")),
    5: ([GUIDE, TRACKING, ADDRESS, RETURNS, COMPLAINTS, SUPERVISOR], ("returns", "complaints")),
}
"""Specialists → (the team's agents, the two specialists whose prompts are swapped)."""


def swap_share(team: PromptTeam, tickets: list, roster: Roster, pair: tuple[str, str]) -> dict:
    """Of the tickets one of ``pair`` handles, the share the other handles once they swap prompts."""
    a, b = pair
    swapped = roster.with_prompts({a: roster.prompt(b), b: roster.prompt(a)})
    before = {t.id: team.handler(t.text, roster) for t in tickets}
    mine = [t for t in tickets if before[t.id] in pair]
    followed = sum(team.handler(t.text, swapped) == (b if before[t.id] == a else a) for t in mine)
    return {"share": followed / max(1, len(mine)), "tickets": len(mine), "pair": list(pair)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="write the results here (JSON)")
    parser.add_argument(
        "--quick", action="store_true", help="small subsets and few epochs (a test runs this)"
    )
    parser.add_argument("--teams", type=int, nargs="+", default=[3, 4, 5], choices=sorted(TEAMS))
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    train, test = load_tickets("train"), load_tickets("test")
    if args.quick:
        train, test = train[:300], test[:100]
    epochs = args.epochs or 30
    backbone = Backbone.load("default")
    router = KeywordRouter.tuned(train)
    teams: dict[str, dict] = {}
    for n in args.teams:
        agents, pair = TEAMS[n]
        roster = Roster.from_agents(agents)
        env = CustomerServiceEnv(test, shuffle=False, team=roster)
        rules = evaluate(env, ScriptedTeam(router, roster=roster).actions)
        team = PromptTeam(backbone, PromptTeamConfig(epochs=epochs, seed=args.seed))
        zero = prompt_routing(team.bank, test, roster)
        t0 = time.perf_counter()
        fit = team.fit(train, roster)
        trained = evaluate(env, team.policy(roster))
        teams[str(n)] = {
            "exact_match": trained["exact_match"],
            "rules_exact_match": rules["exact_match"],
            "intent_f1": trained["intent_f1"],
            "rules_intent_f1": rules["intent_f1"],
            "zero_shot_routing": zero["accuracy"],
            "chance": zero["chance"],
            "zero_shot_by_specialist": zero["by_specialist"],
            "prompt_swap": swap_share(team, test, roster, pair),
            "specialists": list(roster.specialists),
            "train_seconds": time.perf_counter() - t0,
            "fit": fit,
        }
        print(f"{n} specialists: {json.dumps(teams[str(n)], default=str)}", flush=True)
    result = {
        "compose": {
            "teams": teams,
            "zero_shot_routing": statistics.mean(t["zero_shot_routing"] for t in teams.values()),
            "chance": statistics.mean(t["chance"] for t in teams.values()),
            "prompt_swap_share": statistics.mean(t["prompt_swap"]["share"] for t in teams.values()),
        },
        "tickets": {"train": len(train), "test": len(test)},
        "epochs": epochs,
        "seed": args.seed,
        "threads": args.threads,
        "quick": args.quick,
        "backbone": getattr(backbone, "name", "default"),
        "wall_seconds": time.perf_counter() - started,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1, default=float))
    return result


if __name__ == "__main__":
    main()
