"""Compose freely: customer-service teams of 3, 4 and 5 specialists, each defined by its prompt.

For each intent split (the shipped three specialists; logistics split into "tracking" and "address
changes"; and the mediator split into "returns" and "complaints" as well) the bench builds the team as
data (`Roster`, each specialist owning its intents and told its job in a prompt), then measures:

- ``rules_exact_match``: the rule-scripted team following that roster (`ScriptedTeam` over the keyword
  router tuned on the training tickets) in `CustomerServiceEnv` on the test tickets;
- ``exact_match``: the prompt-conditioned team (`agents.envs.customer_service.prompt_team.PromptTeam`, one network for every
  specialist, reading its prompt) trained on the training tickets for that roster, same env and tickets;
- ``zero_shot_routing`` / ``chance``: before any training, each single-intent test ticket goes to the
  specialist whose prompt is nearest (cosine) to one of its clauses — share routed to the intent's
  owner, against the share a random specialist would get right;
- ``prompt_swap_share``: after training, two specialists swap prompts; of the test tickets one of the two
  handled before, the share the other handles after (handler = the specialist whose prompt claims the
  ticket most strongly).

``--arm mappo`` measures the team the product trains and serves instead (keys under ``compose.mappo.4``):
the shipped customer-service template (examples/customer_service.json) with logistics split into
``tracking`` and ``address_changes``, trained by `training.api.train` (the entry point a web launch
calls), its served checkpoint scored on the test tickets against the rule team for that roster, then the
two new specialists' prompts swapped (`mappo_swap`; the template deals roles in training, so its agents
read their jobs from their prompts).

    python bench/compose.py --out compose.json            # full splits (minutes on a 2-core CPU)
    python bench/compose.py --out compose.json --quick    # 300 train / 100 test tickets, few epochs
    python bench/compose.py --out compose.json --arm mappo  # the template as shipped, 4 specialists
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.backbone import Backbone  # noqa: E402
from agents.envs.customer_service.env import CustomerServiceEnv, evaluate  # noqa: E402
from agents.envs.customer_service.prompt_team import PromptTeam, PromptTeamConfig, prompt_routing  # noqa: E402
from agents.envs.customer_service.roster import Roster, drawn_roster  # noqa: E402
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam  # noqa: E402
from agents.envs.customer_service.tickets import load_tickets, write_tickets  # noqa: E402
from training.cli import add_settings_argument, apply_settings  # noqa: E402

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


# ---- the MAPPO arm: the team the product trains and serves ---------------------------------------------
TEMPLATE = Path(__file__).resolve().parents[1] / "examples" / "customer_service.json"
SPLIT = ("tracking", "address_changes")
"""The two specialists logistics is split into (their prompts: TRACKING, ADDRESS above); their prompts swap."""
QUICK_TRAINING = {
    "episodes": 32,
    "batch_size": 16,
    "eval_every": 0,
    "checkpoint_every": 0,
}
"""--quick: a small budget whose team already answers by its prompts; the figures of record use the template's."""
QUICK_START = {
    "reader_epochs": 60,
    "warm_start_episodes": 600,
    "warm_start_epochs": 16,  # jobs are dealt to random seats: cloning needs the template's epochs
}
"""--quick: the environment's warm start (`environment.params`) of that small budget."""


def split_logistics(doc: dict) -> dict:
    """The template with its logistics agent replaced by `tracking` and `address_changes` (logistics'
    network settings, their own intents and prompts) in the agents, the edges and the fallback rules."""
    doc = copy.deepcopy(doc)
    agents = []
    for agent in doc["agents"]:
        agents += [{**agent, **new} for new in (TRACKING, ADDRESS)] if agent["id"] == "logistics" else [agent]
    doc["agents"] = agents
    edges = []
    for edge in doc["edges"]:
        sources, targets = (
            [n] if n != "logistics" else list(SPLIT) for n in (edge["source"], edge["target"])
        )
        edges += [{**edge, "source": s, "target": t} for s in sources for t in targets]
    doc["edges"] = edges
    rules = []
    for rule in doc["fallback"]["rules"]:
        if rule["route_to"] != "logistics":
            rules.append(rule)
            continue
        address = [k for k in rule["keywords"] if "address" in k]
        rules.append({**rule, "keywords": address, "route_to": "address_changes"})
        rules.append(
            {**rule, "keywords": [k for k in rule["keywords"] if k not in address], "route_to": "tracking"}
        )
    doc["fallback"]["rules"] = rules
    return doc


def pair_answers(env: CustomerServiceEnv, policy: Callable, pair: tuple[str, str]) -> list[set[str]]:
    """Per ticket of ``env`` (file order, greedy as `evaluate` runs it): which of ``pair`` sent an answer."""
    out = []
    for index in range(len(env.tickets)):
        observations, _ = env.reset(seed=index, options={"ticket_index": index})
        acted: set[str] = set()
        while env.agents:
            actions = policy(observations)
            acted |= {a for a in pair if a in actions and env.action_names(a)[actions[a]] != "pass"}
            observations, *_ = env.step(actions)
        out.append(acted)
    return out


def mappo_swap(policy: Callable, make_env: Callable, roster: Roster, pair: tuple[str, str]) -> dict:
    """Swap the prompts of ``pair`` in a trained MAPPO team; of the test tickets one of them answered
    alone before, the share the other answers alone after (``share``), the owner still answers
    (``owner_kept``), neither answers (``silent``); and the team's exact match with the prompts swapped.

    Only the prompts move, as a designer prompt edit moves them; the env's roster keeps each agent's
    intents. Under ``deal_roles`` (the template's) every specialist may answer any intent, so a policy that
    reads its job from its prompt shows ``share`` near 1 and an unchanged exact match; without it an agent
    can answer only its own intents, and the other could take a ticket only with wrong answers.
    """
    a, b = pair
    swapped = roster.with_prompts({a: roster.prompt(b), b: roster.prompt(a)})
    before = pair_answers(make_env(roster), policy, pair)
    after = pair_answers(make_env(swapped), policy, pair)
    alone = [(x, y) for x, y in zip(before, after, strict=True) if len(x) == 1]
    n = max(1, len(alone))
    return {
        "share": sum(y == {b if x == {a} else a} for x, y in alone) / n,
        "owner_kept": sum(x <= y for x, y in alone) / n,
        "silent": sum(not y for _, y in alone) / n,
        "tickets": len(alone),
        "pair": list(pair),
        "exact_match_swapped": evaluate(make_env(swapped), policy)["exact_match"],
    }


def mappo_arm(args: argparse.Namespace, train: list, test: list, backbone: Backbone) -> dict:
    """The shipped template with 4 specialists, trained through `training.api.train`; its served
    checkpoint against the rule team for that roster on ``test``, then the prompt swap."""
    from agents.spec import load_spec
    from serving.model import resolve_checkpoint
    from training import api
    from training.mappo.from_spec import load_policy

    doc = split_logistics(json.loads(TEMPLATE.read_text()))
    doc["training"]["seed"] = args.seed
    apply_settings(doc, dict(args.set))  # --set: an experiment's change to the template
    with tempfile.TemporaryDirectory(prefix="mase-compose-") as tmp:
        work = Path(args.work or tmp)
        if args.quick:  # the training env reads the quick subset of training tickets from a file
            write_tickets(train, work / "train_quick.jsonl")
            doc["environment"]["params"]["tickets"] = str(work / "train_quick.jsonl")
            doc["training"] |= QUICK_TRAINING
            doc["environment"]["params"] |= QUICK_START
        team = load_spec(doc, require_environment=True)
        roster = Roster.from_agents(team.agents)
        shutil.rmtree(work / "run", ignore_errors=True)  # a fresh run, never a resumed one
        t0 = time.perf_counter()
        result = api.train(doc, work / "run", backbone=backbone)
        seconds = time.perf_counter() - t0
        checkpoint = resolve_checkpoint(work / "run")  # what a deployment of this run serves
        policy = load_policy(team, checkpoint, backbone).policy(greedy=True)
        params = {k: v for k, v in team.environment.params.items() if k != "tickets"} | {"shuffle": False}

        def make_env(r: Roster) -> CustomerServiceEnv:
            return CustomerServiceEnv(test, team=r, **params)

        trained = evaluate(make_env(roster), policy)
        ruled = drawn_roster(
            roster, params
        )  # the rules index the env's actions (all intents under deal_roles)
        rules = evaluate(make_env(roster), ScriptedTeam(KeywordRouter.tuned(train), roster=ruled).actions)
        swap = mappo_swap(policy, make_env, roster, SPLIT)
    out = {
        "exact_match": trained["exact_match"],
        "rules_exact_match": rules["exact_match"],
        "intent_f1": trained["intent_f1"],
        "rules_intent_f1": rules["intent_f1"],
        "prompt_swap": swap,
        "specialists": list(roster.specialists),
        "status": result.status,
        "checkpoint": checkpoint.name,
        "train_seconds": seconds,
        "training": {k: doc["training"][k] for k in (*QUICK_TRAINING, "seed")}
        | {k: doc["environment"]["params"][k] for k in QUICK_START},
    }
    print(f"mappo, 4 specialists: {json.dumps(out, default=str)}", flush=True)
    return {"4": out}


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
    parser.add_argument(
        "--arm",
        choices=("prompt", "mappo", "all"),
        default="prompt",
        help="prompt: the prompt-conditioned scorer (compose.teams...); mappo: the template the product "
        "trains, 4 specialists (compose.mappo.4...); all: both",
    )
    parser.add_argument("--work", help="mappo arm: keep the run directory here (default: a temporary one)")
    add_settings_argument(
        parser, "mappo arm: change the template for an experiment (e.g. environment.params.actor_evidence=reader)"
    )
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
    for n in args.teams if args.arm != "mappo" else ():
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
    compose: dict[str, object] = {}
    if teams:
        compose = {
            "teams": teams,
            "zero_shot_routing": statistics.mean(t["zero_shot_routing"] for t in teams.values()),
            "chance": statistics.mean(t["chance"] for t in teams.values()),
            "prompt_swap_share": statistics.mean(t["prompt_swap"]["share"] for t in teams.values()),
        }
    if args.arm != "prompt":
        compose["mappo"] = mappo_arm(args, train, test, backbone)
    result = {
        "compose": compose,
        "arm": args.arm,
        "tickets": {"train": len(train), "test": len(test)},
        "epochs": epochs,
        "seed": args.seed,
        "settings": dict(args.set),  # {} = the template as shipped
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
