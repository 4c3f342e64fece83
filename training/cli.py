"""The `mase` command line: `mase validate SPEC`, `mase train SPEC --out DIR`, `mase eval DIR`,
`mase envs [NAME]` (the environments and their parameters), and
the commands other modules register (e.g. `mase submit` / `mase follow` from training.remote).

Each command module exposes `register(subparsers)`, which adds its sub-parser and sets `func` (a
callable taking the parsed arguments and returning an exit code). To add a command, append the
module's name to `COMMAND_MODULES`.

User errors (a malformed spec, an unknown backbone path, a corrupted checkpoint) print one line
`error: …` naming what to change and exit with status 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from agents.advisor import advise
from agents.spec import _read_document, spec_warnings, validate_spec

# Modules whose `register(subparsers)` adds commands; this module registers its own first.
COMMAND_MODULES: list[str] = ["training.cli", "training.remote", "serving.cli"]


def _print_error(message: str) -> int:
    from rich.console import Console

    Console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False)
    return 2


# ---------------------------------------------------------------------------------------- validate
def cmd_validate(args: argparse.Namespace) -> int:
    """Check a spec file; print every error with its JSON path (exit 1 when there are any)."""
    try:
        doc = _read_document(args.spec)
    except ValueError as exc:
        return _print_error(str(exc))
    errors = validate_spec(doc, require_environment=args.require_environment)
    for warning in spec_warnings(doc) if not errors else []:
        print(f"warning: {warning.path}: {warning.message}")
    if errors:
        for error in errors:
            print(f"{error.path}: {error.message}")
        print(f"{args.spec}: {len(errors)} error(s)")
        return 1
    print(f"{args.spec}: valid")
    if args.advice:
        advice = advise(doc)
        print(
            f"advice: {advice.recommendation} (decision density {advice.decision_density:.2f}, "
            f"uncertainty {advice.uncertainty:.2f}, reward conflict {advice.reward_conflict:.2f})"
        )
        for reason in advice.reasons:
            print(f"  - {reason}")
    return 0


# ------------------------------------------------------------------------------------------- train
class _StageBars:
    """One rich progress bar per stage of the run (reader fitting, cloning, PPO, evaluation…), fed by the
    run's "progress" events; the training bar also shows the latest success and return."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} {task.fields[unit]}"),
            TextColumn("{task.fields[left]}"),
            TextColumn("{task.fields[scores]}"),
            refresh_per_second=4,
        )
        self.tasks: dict[str, object] = {}

    def __enter__(self) -> _StageBars:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, event) -> None:
        p = event.payload
        if event.type == "metrics" and "training" in self.tasks:
            scores = [f"{key} {p[key]:.2f}" for key in ("success", "return") if isinstance(p.get(key), float)]
            if scores:
                self.progress.update(self.tasks["training"], scores=" ".join(scores))
        if event.type != "progress":
            return
        if p["phase"] not in self.tasks:
            self.tasks[p["phase"]] = self.progress.add_task(
                p["label"], total=p["total"], unit="", left="", scores=""
            )
        self.progress.update(
            self.tasks[p["phase"]],
            description=p["label"],
            completed=p["done"],
            total=p["total"],
            unit=p["unit"],
            left=time_left(p),
        )


def time_left(progress: dict) -> str:
    """What a "progress" payload says of the time: "about 12 s left", "done in 3 s", "estimating…"."""
    if progress["state"] != "running":
        return f"{progress['state']} in {_seconds(progress['elapsed_s'])}"
    if progress.get("eta_s") is None:
        return "estimating…"
    return f"about {_seconds(progress['eta_s'])} left"


def _seconds(value: float) -> str:
    value = round(float(value))
    return f"{value} s" if value < 120 else f"{value // 60} min {value % 60:02d} s"


def cmd_train(args: argparse.Namespace) -> int:
    """Train a spec into --out, resuming from its newest checkpoint unless --fresh."""
    import shutil

    from agents.spec import load_spec
    from training.api import train

    spec = load_spec(args.spec)
    out = Path(args.out)
    if args.fresh and out.exists():
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
        (out / "events.jsonl").unlink(missing_ok=True)
    overrides = _parse_overrides(args.set or [])
    # `--set episodes=N` is the budget too, as `--episodes N` is (an explicit --episodes wins)
    budget = overrides.pop("episodes", spec.training.episodes)
    total = args.episodes if args.episodes is not None else int(budget)
    if args.quiet:
        result = train(spec, out, resume=not args.fresh, episodes=total, overrides=overrides)
    else:
        with _StageBars() as bars:
            result = train(
                spec, out, resume=not args.fresh, episodes=total, overrides=overrides, sinks=[bars]
            )
    summary = {"status": result.status, "episodes": result.episodes, "seconds": round(result.seconds, 1)}
    summary.update({k: round(v, 4) for k, v in result.metrics.items() if isinstance(v, float)})
    print(json.dumps(summary))
    print(f"checkpoint: {result.checkpoint}\nevents: {out / 'events.jsonl'}")
    return 0 if result.status == "succeeded" else 3


def parse_setting(text: str) -> tuple[str, object]:
    """One KEY=VALUE of `--set`: VALUE read as JSON when it parses (numbers, true/false), else as text."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--set expects KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(raw)
    except json.JSONDecodeError:
        return key, raw


def add_settings_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """A repeatable ``--set SECTION.KEY=VALUE`` (`parse_setting`) on a benchmark's ``parser``."""
    parser.add_argument(
        "--set", action="append", type=parse_setting, default=[], metavar="SECTION.KEY=VALUE", help=help
    )


def apply_settings(doc: dict, settings: Mapping[str, object]) -> dict:
    """``doc`` (a spec document) with each dotted ``SECTION.KEY`` of ``settings`` set to its value, in place."""
    for dotted, value in settings.items():  # e.g. environment.params.reader_epochs
        *sections, key = dotted.split(".")
        place = doc
        for section in sections:
            place = place.setdefault(section, {})
        place[key] = value
    return doc


def _parse_overrides(pairs: Sequence[str]) -> dict:
    return dict(parse_setting(pair) for pair in pairs)


# -------------------------------------------------------------------------------------------- eval
def cmd_eval(args: argparse.Namespace) -> int:
    """Greedy evaluation of a run directory's newest (or a given) checkpoint."""
    from training.api import evaluate_run

    result = evaluate_run(
        args.run, episodes=args.episodes, templates=args.templates, checkpoint=args.checkpoint
    )
    if args.json:
        print(json.dumps(result))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"{args.run} — {result['episodes']} greedy episodes ({result['templates']} templates)"
    )
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in ("success", "messages_per_episode", "attention_entropy", "distractor_attention"):
        table.add_row(key, f"{result[key]:.4f}")
    Console().print(table)
    return 0


# ----------------------------------------------------------------------------------------- verdict
def cmd_verdict(args: argparse.Namespace) -> int:
    """The run beside its rules and imitation on the same held-out episodes, and whether MARL paid."""
    from training.baselines import has_baselines, run_baselines

    spec = json.loads((Path(args.run) / "spec.json").read_text(encoding="utf-8"))
    if not has_baselines(spec):
        return _print_error(
            f"{args.run}: this team has no baselines (a MAPPO or IPPO run in an environment that ships rules)"
        )
    verdict = run_baselines(spec, args.run, episodes=args.episodes)
    if args.json:
        print(json.dumps(verdict.to_dict()))
        return 0
    for arm in verdict.arms:
        cost = "" if arm.cost is None else f", cost {arm.cost:.2f}"
        print(f"{arm.name:>10}: {arm.mean:.3f} ({arm.low:.3f}–{arm.high:.3f}{cost})")
    print(verdict.sentence)
    return 0


# -------------------------------------------------------------------------------------------- envs
def cmd_envs(args: argparse.Namespace) -> int:
    """The registered environments, or one environment's parameters (default, kind, what it does)."""
    from rich.console import Console
    from rich.table import Table

    from agents.envs import REGISTRY, env_parameters

    names = [args.name] if args.name else sorted(REGISTRY)
    described = {name: env_parameters(name) for name in names}
    if args.json:
        print(json.dumps(described))
        return 0
    for name, params in described.items():
        table = Table(title=f"{name} — environment.params")
        for column in ("parameter", "default", "kind", "what it does"):
            table.add_column(column, overflow="fold")
        for param in params:
            kind = " | ".join(json.dumps(c) for c in param["choices"]) or param["kind"]
            table.add_row(param["name"], json.dumps(param["default"]), kind, param["help"])
        Console().print(table)
    return 0


def register(subparsers) -> None:
    """Add `validate`, `train`, `eval` and `envs`."""
    validate = subparsers.add_parser("validate", help="check a team spec file")
    validate.add_argument("spec", help="path of the spec JSON")
    validate.add_argument(
        "--require-environment", action="store_true", help="also require $.environment.name (needed to train)"
    )
    validate.add_argument("--advice", action="store_true", help="also print the complexity advisor's verdict")
    validate.set_defaults(func=cmd_validate)

    train = subparsers.add_parser("train", help="train a team spec (resumes from the last checkpoint)")
    train.add_argument("spec", help="path of the spec JSON")
    train.add_argument("--out", required=True, help="run directory (checkpoints, events.jsonl)")
    train.add_argument("--episodes", type=int, help="total episodes (default: training.episodes of the spec)")
    train.add_argument("--fresh", action="store_true", help="ignore existing checkpoints and start over")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="trainer setting beyond the spec, e.g. batch_size=64",
    )
    train.set_defaults(func=cmd_train)

    evaluate = subparsers.add_parser("eval", help="evaluate a trained run greedily")
    evaluate.add_argument("run", help="run directory written by mase train")
    evaluate.add_argument("--episodes", type=int, default=1000)
    evaluate.add_argument(
        "--templates", choices=["train", "heldout", "all"], help="paraphrase split to test on"
    )
    evaluate.add_argument("--checkpoint", help="a checkpoint directory (default: the newest)")
    evaluate.add_argument("--json", action="store_true", help="print the metrics as JSON")
    evaluate.set_defaults(func=cmd_eval)

    verdict = subparsers.add_parser(
        "verdict", help="a MAPPO/IPPO run beside its rules and imitation: did MARL pay?"
    )
    verdict.add_argument("run", help="run directory written by mase train")
    verdict.add_argument("--episodes", type=int, help="evaluation episodes (default: training.eval_episodes)")
    verdict.add_argument("--json", action="store_true", help="print the verdict as JSON")
    verdict.set_defaults(func=cmd_verdict)

    envs = subparsers.add_parser("envs", help="list the environments, or one environment's parameters")
    envs.add_argument("name", nargs="?", help="an environment name (default: all)")
    envs.add_argument("--json", action="store_true", help="print the parameters as JSON")
    envs.set_defaults(func=cmd_envs)


def build_parser() -> argparse.ArgumentParser:
    """The `mase` parser with every registered command."""
    parser = argparse.ArgumentParser(prog="mase", description="Multi-Agent Self-Evolution")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = sys.modules[__name__] if name == __name__ else importlib.import_module(name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `mase` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:  # every user error of the library is a ValueError subclass
        return _print_error(str(exc))
    except FileNotFoundError as exc:
        return _print_error(f"{exc.filename or exc}: no such file")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
