"""One rank of a data-parallel run, as torch's elastic launcher starts it (training.distributed.launch):

    python -m torch.distributed.run --standalone --nproc-per-node=2 --max-restarts=3 \\
        -m training.distributed_worker --spec RUN/distributed/launch_spec.json --out RUN

Every rank joins the group and trains through `training.api.train`; rank 0 writes the checkpoints and
its events to RUN/distributed/events.jsonl (numbering continued from the file, so a restarted group's
events follow on) and stops when RUN/STOP appears. A failing rank exits non-zero: the launcher then
restarts the whole group, which resumes from the newest checkpoint.

`MASE_DIST_FAIL=RANK:EPISODE` (tests only) makes rank RANK fail once it has trained EPISODE episodes,
on the group's first attempt only — the elastic-restart test.
"""

from __future__ import annotations

import argparse
import os
import traceback
from pathlib import Path

import torch

from agents.spec import load_spec
from training.api import JsonlEventLog, train
from training.distributed import EVENTS_FILE, RANKS_DIR, Group, StopFile, join, leave
from training.events import EventStream


def _injected_failure(group: Group):
    """The progress callback that fails this rank once (MASE_DIST_FAIL), or None."""
    planned = os.environ.get("MASE_DIST_FAIL", "")
    if not planned or os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") != "0":
        return None
    rank, episode = (int(x) for x in planned.split(":"))
    if rank != group.rank:
        return None

    def progress(stats, info) -> None:
        if info["episode"] >= episode:
            raise RuntimeError(
                f"injected failure of rank {rank} at episode {info['episode']} (MASE_DIST_FAIL)"
            )

    return progress


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--episodes", type=int, default=None)
    parser.add_argument("--fresh", action="store_true", help="start over (a restarted group resumes anyway)")
    parser.add_argument("--threads", type=int, default=int(os.environ.get("MASE_TORCH_THREADS", "1")))
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, args.threads))
    spec = load_spec(args.spec, require_environment=True)
    group = join(spec.training.device)
    out = Path(args.out)
    restarts = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    if group.is_main:
        log = JsonlEventLog(out / RANKS_DIR / EVENTS_FILE)
        events = EventStream([log], start_seq=log.last_seq())
        should_stop = StopFile(out)
        if restarts:
            events.emit(
                "log",
                message=f"restart {restarts} of the {group.world_size}-process group after a rank failed; "
                "resuming from the newest checkpoint",
            )
    else:
        events, should_stop = EventStream(), (lambda: False)  # only rank 0 reports
    try:
        train(
            spec,
            out,
            events=events,
            should_stop=should_stop,
            resume=restarts > 0 or not args.fresh,
            episodes=args.episodes,
            group=group,
            progress=_injected_failure(group),
        )
    except Exception as exc:
        if group.is_main:
            events.emit(
                "log",
                message=f"rank 0 stopped: {type(exc).__name__}: {str(exc)[:300]}",
                traceback=traceback.format_exc(limit=4),
            )
        raise
    finally:
        leave(group)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
