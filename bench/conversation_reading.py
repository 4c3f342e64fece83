"""How a live conversation's messages are read onto the interactive-support team's observation.

A deployed interactive-support team reads a real customer's message through its backbone's sentence vectors
(`agents.envs.interactive_support.reading`): a belief over problems and goals, which facts the message
states, and an order number. This measures that reading on hand-written messages
(`data/interactive_support/live_messages.jsonl`, written after the descriptions and never used to change
them): how often a message that names a problem (goal) is read as stating one, and read right, and how often
a vague opening is read as stating nothing (so the team has something to ask).

    python bench/conversation_reading.py --out F.json [--quick]

Keys: `conversation_reading.{problem, goal}.{named, stated, right, right_of_stated}` and
`conversation_reading.vague.{messages, nothing_stated}` (also `examples[]`: each message as read).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from agents.backbone import Backbone
from agents.envs.interactive_support.reading import MessageReader
from agents.envs.interactive_support.world import GOALS, PROBLEMS

MESSAGES = Path(__file__).resolve().parents[1] / "data" / "interactive_support" / "live_messages.jsonl"


def measure(rows: list[dict], reader: MessageReader) -> dict:
    read = [(row, reader.read(row["text"])) for row in rows]
    out: dict = {}
    for fact, names in (("problem", PROBLEMS), ("goal", GOALS)):
        named = [(row, r) for row, r in read if row[fact]]
        stated = [(row, r) for row, r in named if getattr(r, f"{fact}_stated")]
        right = [row for row, r in stated if names[int(np.argmax(getattr(r, f"{fact}_belief")))] == row[fact]]
        out[fact] = {
            "named": len(named),
            "stated": round(len(stated) / max(1, len(named)), 3),
            "right": round(len(right) / max(1, len(named)), 3),
            "right_of_stated": round(len(right) / max(1, len(stated)), 3),
        }
    vague = [r for row, r in read if not row["problem"] and not row["goal"]]
    out["vague"] = {
        "messages": len(vague),
        "nothing_stated": round(
            sum(not (r.problem_stated or r.goal_stated) for r in vague) / max(1, len(vague)), 3
        ),
    }
    out["examples"] = [
        {
            "text": row["text"],
            "problem": PROBLEMS[int(np.argmax(r.problem_belief))] if r.problem_stated else None,
            "goal": GOALS[int(np.argmax(r.goal_belief))] if r.goal_stated else None,
            "order_number": r.order_number,
            "truth": {"problem": row["problem"], "goal": row["goal"]},
        }
        for row, r in read
    ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="the first 8 messages only")
    args = parser.parse_args()
    torch.set_num_threads(1)
    started = time.perf_counter()
    rows = [json.loads(line) for line in MESSAGES.read_text().splitlines() if line.strip()]
    rows = rows[:8] if args.quick else rows
    backbone = Backbone.load("default")

    def embed(texts):
        with torch.no_grad():
            return torch.nn.functional.normalize(backbone.encode(list(texts)).float(), dim=-1).numpy()

    result = measure(rows, MessageReader(embed))
    result["seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps({"conversation_reading": result}, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}, indent=2))


if __name__ == "__main__":
    main()
