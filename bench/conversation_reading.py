"""How a live conversation's messages are read onto the interactive-support team's observation.

A deployed interactive-support team reads a real customer's message through its backbone's sentence vectors
(`agents.envs.interactive_support.reading`): a belief over problems and goals, which facts the message
states, and an order number. This measures that reading on hand-written messages
(`data/interactive_support/live_messages.jsonl`, written after the descriptions and never used to change
them): how often a message that names a problem (goal) is read as stating one, and read right, and how often
a vague opening is read as stating nothing (so the team has something to ask). With ``--checkpoint`` (a run
directory of the interactive-support template) the trained team also holds six scripted conversations
(`data/interactive_support/live_conversations.jsonl`: a vague opening, then the customer answers what they are
asked) with every decision its own (breaker threshold 0), as a deployment plays them (`LiveSupportEnv`).

    python bench/conversation_reading.py --out F.json [--quick] [--checkpoint RUN_DIR]

Keys: `conversation_reading.{problem, goal}.{named, stated, right, right_of_stated}` and
`conversation_reading.vague.{messages, nothing_stated}` (also `examples[]`: each message as read);
with a checkpoint `conversation_reading.model.{conversations, asked_first, answered, answer_right,
transcripts[]}`.
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
CONVERSATIONS = MESSAGES.with_name("live_conversations.jsonl")


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


def _customer_says(script: dict, event: dict | None) -> str:
    """The scripted customer answers what the team asked (the goal message carries the order number)."""
    fact = (event or {}).get("fact")
    return script["problem_message"] if fact == "problem" else script["goal_message"] if fact else "ok"


def play_conversations(checkpoint: str, reader: MessageReader, scripts: list[dict]) -> dict:
    """The trained team (every decision its own) in scripted conversations opened by a vague message."""
    from agents.envs.interactive_support.live import LiveSupportEnv
    from agents.spec import load_spec
    from serving.model import resolve_checkpoint
    from serving.runtime import TeamRuntime

    spec = json.loads((MESSAGES.parents[2] / "examples" / "interactive_support.json").read_text())
    spec["circuit_breaker"]["confidence_threshold"] = 0.0
    served = TeamRuntime.from_spec_checkpoint(load_spec(spec), resolve_checkpoint(checkpoint))
    runtime = TeamRuntime(served.model, LiveSupportEnv, breaker=served.breaker, fallback=served.fallback)
    out = {
        "conversations": len(scripts),
        "asked_first": 0,
        "answered": 0,
        "answer_right": 0,
        "transcripts": [],
    }
    for i, script in enumerate(scripts):
        state, event, text, turns = None, None, script["opening"], []
        for turn in range(6):
            result = runtime.run(
                {"conversation": state, "message": reader.read(text).as_dict(), "seed": 100 + i}
            )
            state, event = result["info"]["live"]["state"], result["info"]["live"]["event"]
            decided = [f"{d['agent']}: {d['action']} ({d['confidence']:.2f})" for d in result["decisions"]]
            turns.append(
                {"customer": text, "decisions": [d for d in decided if ": wait" not in d], "event": event}
            )
            out["asked_first"] += int(turn == 0 and event["kind"] == "question")
            if event["kind"] != "question":
                break
            text = _customer_says(script, event)
        if event["kind"] == "answer":
            out["answered"] += 1
            out["answer_right"] += int(
                (event["problem"], event["remedy"]) == (script["problem"], script["goal"])
            )
        out["transcripts"].append(turns)
    runtime.close()
    served.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="the first 8 messages only")
    parser.add_argument(
        "--checkpoint", help="a run directory of the template: play the scripted conversations"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    started = time.perf_counter()
    rows = [json.loads(line) for line in MESSAGES.read_text().splitlines() if line.strip()]
    rows = rows[:8] if args.quick else rows
    backbone = Backbone.load("default")

    def embed(texts):
        with torch.no_grad():
            return torch.nn.functional.normalize(backbone.encode(list(texts)).float(), dim=-1).numpy()

    reader = MessageReader(embed)
    result = measure(rows, reader)
    if args.checkpoint:
        scripts = [json.loads(line) for line in CONVERSATIONS.read_text().splitlines() if line.strip()]
        result["model"] = play_conversations(args.checkpoint, reader, scripts[:2] if args.quick else scripts)
    result["seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps({"conversation_reading": result}, indent=2))
    shown = {k: v for k, v in result.items() if k != "examples"}
    if "model" in shown:
        shown["model"] = {k: v for k, v in shown["model"].items() if k != "transcripts"}
    print(json.dumps(shown, indent=2))


if __name__ == "__main__":
    main()
