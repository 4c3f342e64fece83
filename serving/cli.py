"""The ``mase run`` command (also ``python -m serving.cli``): tickets through a trained team, from the shell.

``python -m serving.cli SPEC --checkpoint RUN_DIR --ticket "where is my parcel?"`` prints one line per
ticket and the breaker's state; `register` adds it to ``mase`` (listed in `training.cli.COMMAND_MODULES`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from agents.envs.routing import routing
from agents.spec import load_spec
from serving.decisions import DecisionLog
from serving.model import resolve_checkpoint
from serving.runtime import TeamRuntime


def add_arguments(parser: Any) -> None:
    """The `run` command's arguments."""
    parser.add_argument("spec", help="team spec JSON file the team was trained from")
    parser.add_argument("--checkpoint", required=True, help="run output directory or checkpoint directory")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--ticket", action="append", help="a customer message to run (repeatable)")
    group.add_argument("--tickets", help="customer service: a split name or JSONL file of tickets")
    parser.add_argument("--limit", type=int, default=20, help="run at most this many tickets from --tickets")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--decisions", help="append every decision record to this JSONL file")
    parser.add_argument("--json", action="store_true", help="print each result as one JSON line")


def cmd_run(args: Any) -> int:
    """Run tickets through a trained team; print one line per ticket and the breaker's state."""

    try:
        team = load_spec(args.spec, require_environment=True)
        log = DecisionLog(path=args.decisions) if args.decisions else None
        runtime = TeamRuntime.from_spec_checkpoint(
            team, resolve_checkpoint(args.checkpoint), decision_sink=log.append if log is not None else None
        )
        if args.tickets:
            interface = routing(team.environment.name)
            if interface is None:
                raise ValueError(f"environment {team.environment.name!r} takes no ticket file")
            tasks: list[Any] = interface.load_tickets(args.tickets, dict(team.environment.params))[
                : args.limit
            ]
        else:
            tasks = list(args.ticket)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with runtime:
        results = runtime.run_batch(tasks, concurrency=args.concurrency, tickets=True)
    for result in results:
        if args.json:
            print(json.dumps({k: v for k, v in result.items() if k != "decisions"}, default=str))
        elif result["status"] == "error":
            print(f"error: {result['error']}")
        else:
            info = result["info"]
            print(
                f"{result['task_id']}: {result['status']} in {result['steps']} steps, "
                f"{result['latency_ms']:.1f} ms, answered {info.get('predicted_intents')}, "
                f"sources {result['sources']}"
                + (f", faults {[f['kind'] for f in result['faults']]}" if result["faults"] else "")
            )
    print(f"breaker: {json.dumps(runtime.status()['breaker'], default=str)}", file=sys.stderr)
    return 0 if all(r["status"] != "error" for r in results) else 1


def register(subparsers: Any) -> None:
    """Add `run` to the `mase` command line (see training.cli.COMMAND_MODULES)."""
    parser = subparsers.add_parser(
        "run", help="run tickets/tasks through a trained team (breaker + fallback)"
    )
    add_arguments(parser)
    parser.set_defaults(func=cmd_run)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m serving.cli SPEC --checkpoint DIR --ticket TEXT`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m serving.cli", description=cmd_run.__doc__)
    add_arguments(parser)
    return cmd_run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
