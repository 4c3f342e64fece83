"""The rule baseline from the shell: `python -m agents.envs.customer_service [--tickets FILE]` tunes the
keyword router on the training tickets and reports it per split (or on FILE), alone and as a scripted team."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from agents.envs.customer_service.env import CustomerServiceEnv, evaluate
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam, exact_match, intent_f1
from agents.envs.customer_service.tickets import HOLDOUT_STYLES, SPLITS, load_tickets


def main(argv: Sequence[str] | None = None) -> None:
    """Tune the router on train; report it per split (or on ``--tickets``), alone and as a scripted team."""
    parser = argparse.ArgumentParser(description="Evaluate the keyword/rule baseline router and workflow.")
    parser.add_argument("--tickets", help="evaluate on this JSONL ticket file instead of the shipped splits")
    args = parser.parse_args(argv)
    router = KeywordRouter.tuned()
    team = ScriptedTeam(router)
    names = [args.tickets] if args.tickets else [*SPLITS, HOLDOUT_STYLES]
    for name in names:
        tickets = load_tickets(name)
        workflow = evaluate(CustomerServiceEnv(tickets), team.actions)
        print(
            f"{name}: router exact_match={exact_match(router, tickets):.3f} intent_f1={intent_f1(router, tickets):.3f}"
            f" | workflow exact_match={workflow['exact_match']:.3f} steps={workflow['steps_per_ticket']:.2f}"
            f" messages={workflow['messages_per_ticket']:.2f} | n={len(tickets)}"
        )


if __name__ == "__main__":
    main()
