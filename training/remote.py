"""`mase submit` and `mase follow`: run a spec on a MASE server and watch its events in the terminal.

The server is given by `--server` or MASE_SERVER (default http://127.0.0.1:8000) and the API token
by `--token` or MASE_TOKEN (get one with POST /api/token/ or `python manage.py drf_create_token USER`).
Following reconnects after a dropped connection with `?after=<last sequence number>`, so no event is
missed or printed twice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

DEFAULT_SERVER = "http://127.0.0.1:8000"


class RemoteError(ValueError):
    """The server refused or could not be reached; the message says why (a user error: `mase`
    prints it as one line)."""


@dataclass(frozen=True)
class Server:
    url: str
    token: str

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url.rstrip('/')}/api/{path}",
            data=data,
            method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise RemoteError(f"{method} /api/{path} → {exc.code}: {_explain(exc.read())}") from None
        except urllib.error.URLError as exc:
            raise RemoteError(
                f"cannot reach {self.url} ({exc.reason}); check --server / MASE_SERVER"
            ) from None

    @property
    def ws_url(self) -> str:
        return self.url.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)


def _explain(body: bytes) -> str:
    try:
        doc = json.loads(body)
    except ValueError:
        return body[:200].decode(errors="replace")
    errors = doc.get("errors") or {}
    details = "; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in list(errors.items())[:10])
    return f"{doc.get('detail', '')} {details}".strip()


def server_from(args: argparse.Namespace) -> Server:
    token = args.token or os.environ.get("MASE_TOKEN", "")
    if not token:
        raise RemoteError("no API token: pass --token or set MASE_TOKEN (POST /api/token/ gives one)")
    return Server(args.server or os.environ.get("MASE_SERVER", DEFAULT_SERVER), token)


def describe(event: dict) -> str | None:
    """One terminal line for an event (None for high-rate events shown only in the status line)."""
    kind, p = event["type"], event["payload"]
    if kind == "metrics":
        if "system" in p or "episode" not in p:
            return None
        shown = {
            k: v
            for k, v in p.items()
            if isinstance(v, float) and k in ("success", "reward", "messages", "attention_entropy")
        }
        return f"episode {p['episode']:>7}  " + "  ".join(f"{k} {v:.3f}" for k, v in shown.items())
    if kind == "attention":
        return None
    if kind == "progress":  # a stage's end only: its running reports arrive every second
        if p.get("state") == "running":
            return None
        return f"{p.get('label')}: {p.get('state')} ({p.get('done')}/{p.get('total')} {p.get('unit')}, {p.get('elapsed_s')} s)"
    if kind == "phase":
        return f"[bold magenta]phase[/] {p.get('from')} → {p.get('to')} ({p.get('reason', '')})"
    if kind == "plateau":
        return f"[yellow]plateau[/] {p.get('recommendation', '')}"
    if kind == "alert":
        return f"[red]alert[/] {p.get('name')} {p.get('level')} (value {p.get('value')})"
    if kind == "checkpoint":
        return f"checkpoint at episode {p.get('episode', p.get('step'))}"
    if kind in ("error", "log"):
        return f"{kind}: {p.get('message')}"
    if kind == "started":
        return f"[bold]started[/] {p.get('algorithm', '')} (resumed from {p.get('resumed_from')})"
    if kind == "finished":
        return f"[bold]finished[/]: {p.get('status')} {json.dumps(p.get('metrics', {}))}"
    return None


TERMINAL = ("succeeded", "failed", "cancelled")


@dataclass
class _Progress:
    """What a follower has seen: the last event printed, a `finished` status not yet confirmed by the
    run's state, and whether the run reported an error."""

    last: int
    pending: str | None = None
    saw_error: bool = False


async def _ended(server: Server, run_id: int, seen: _Progress) -> dict | None:
    """The run when it has ended and every event of it was printed, else None.

    The run's state decides, not the events alone: an old `finished` of a resumed run is not its end,
    and a run ended without any event (failed at claim time, say) still ends the follow.
    """
    try:
        run = await asyncio.to_thread(server.request, "GET", f"runs/{run_id}/")
    except RemoteError:  # a passing outage: the stream's own `finished`, else keep following
        return None if seen.pending is None else {"state": seen.pending, "error": ""}
    return run if run["state"] in TERMINAL and (run.get("last_seq") or 0) <= seen.last else None


async def _follow(server: Server, run_id: int, after: int, console: Console, poll: float = 5.0) -> str:
    import websockets

    headers = {"Authorization": f"Token {server.token}", "Origin": server.url.rstrip("/")}
    seen, retries, connected = _Progress(after), 0, False
    while True:
        try:
            async with websockets.connect(
                f"{server.ws_url}/ws/runs/{run_id}/?after={seen.last}", additional_headers=headers
            ) as ws:
                if not connected:
                    console.print(f"[dim]following run {run_id} (Ctrl-C stops following, not the run)[/]")
                retries, connected, check_soon = 0, True, True
                while True:
                    # Silence or a heartbeat is when to ask the server whether the run ended; soon after
                    # connecting (the backlog is in) or a `finished` event, more often.
                    try:
                        frame = json.loads(await asyncio.wait_for(ws.recv(), 0.5 if check_soon else poll))
                    except TimeoutError:
                        frame = {"type": "silence"}
                    events = [e for e in frame.get("events", []) if e["seq"] > seen.last]
                    for event in events:
                        seen.last = event["seq"]
                        line = describe(event)
                        if line:
                            console.print(f"[dim]#{event['seq']:>5}[/] {line}")
                        seen.saw_error |= event["type"] == "error"
                        if event["type"] == "finished":
                            seen.pending = event["payload"].get("status", "failed")
                        elif event["type"] == "started":  # a resumed run: that end was not the last
                            seen.pending = None
                    if events and not any(e["type"] == "finished" for e in events):
                        continue
                    run = await _ended(server, run_id, seen)
                    if run is not None:
                        return _say_end(console, run_id, run, seen)
                    check_soon = seen.pending is not None
        except websockets.InvalidStatus as exc:
            raise RemoteError(
                f"the server refused to stream run {run_id} (HTTP {exc.response.status_code})"
            ) from None
        except (OSError, websockets.ConnectionClosed) as exc:
            if not connected:
                raise RemoteError(
                    f"cannot reach {server.url} ({exc}); check --server / MASE_SERVER"
                ) from None
            retries += 1
            if retries > 10:
                raise RemoteError(f"lost the connection to {server.url} and could not reconnect") from None
            await asyncio.sleep(min(10, 0.5 * 2**retries))


def _say_end(console: Console, run_id: int, run: dict, seen: _Progress) -> str:
    state = run["state"]
    reason = f": {escape(run['error'])}" if run.get("error") and not seen.saw_error else ""
    console.print(f"[bold {'green' if state == 'succeeded' else 'red'}]run {run_id} {state}[/]{reason}")
    return state


def follow(server: Server, run_id: int, after: int = 0, console: Console | None = None) -> str:
    """Print a run's events until it ends; returns its final state."""
    return asyncio.run(_follow(server, run_id, after, console or Console()))


def cmd_submit(args: argparse.Namespace) -> int:
    server = server_from(args)
    try:
        spec = json.loads(Path(args.spec).read_text())
    except (OSError, ValueError) as exc:
        raise RemoteError(f"cannot read {args.spec}: {exc}") from None
    body = {
        "project": args.project,
        "name": args.name or Path(args.spec).stem,
        "device": args.device,
        "spec": spec,
    }
    run = server.request("POST", "runs/", body)
    console = Console()
    console.print(f"run {run['id']} queued on {args.device}: {server.url.rstrip('/')}/runs/{run['id']}/")
    if not args.follow:
        return 0
    return 0 if follow(server, run["id"], console=console) == "succeeded" else 1


def cmd_follow(args: argparse.Namespace) -> int:
    return 0 if follow(server_from(args), args.run, args.after) == "succeeded" else 1


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", help=f"MASE server URL (default: $MASE_SERVER or {DEFAULT_SERVER})")
    parser.add_argument("--token", help="API token (default: $MASE_TOKEN)")


def register(subparsers) -> None:
    """Add `submit` and `follow` to the `mase` command line."""
    submit = subparsers.add_parser("submit", help="run a spec on a MASE server (and follow it)")
    submit.add_argument("spec", help="team spec JSON file")
    submit.add_argument("--project", type=int, required=True, help="project id on the server")
    submit.add_argument("--name", help="run name (default: the file name)")
    submit.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    submit.add_argument("--follow", action="store_true", help="print the run's events until it finishes")
    _server_options(submit)
    submit.set_defaults(func=cmd_submit)
    watch = subparsers.add_parser("follow", help="print a run's events live until it finishes")
    watch.add_argument("run", type=int, help="run id")
    watch.add_argument("--after", type=int, default=0, help="skip events up to this sequence number")
    _server_options(watch)
    watch.set_defaults(func=cmd_follow)
