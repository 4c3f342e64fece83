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


async def _follow(server: Server, run_id: int, after: int, console: Console) -> str:
    import websockets

    headers = {"Authorization": f"Token {server.token}", "Origin": server.url.rstrip("/")}
    last, retries, connected = after, 0, False
    while True:
        try:
            async with websockets.connect(
                f"{server.ws_url}/ws/runs/{run_id}/?after={last}", additional_headers=headers
            ) as ws:
                retries, connected = 0, True
                async for raw in ws:
                    frame = json.loads(raw)
                    for event in frame.get("events", []):
                        if event["seq"] <= last:
                            continue
                        last = event["seq"]
                        line = describe(event)
                        if line:
                            console.print(f"[dim]#{event['seq']:>5}[/] {line}")
                        if event["type"] == "finished":
                            return event["payload"].get("status", "failed")
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


def follow(server: Server, run_id: int, after: int = 0, console: Console | None = None) -> str:
    """Print a run's events until it finishes; returns its final status."""
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
