"""A run as one standalone HTML file: its facts, final metrics, learning curves, phases, checkpoints
and learned communication, drawn with the `plotly` package (the script is embedded once, so the file
opens offline)."""

from __future__ import annotations

from html import escape
from typing import Any

import plotly.graph_objects as go
from django.utils import timezone

from mase_web.runs.comparison import metric_series, wall_seconds
from mase_web.runs.models import Run, RunEvent

CURVE_ORDER = ("success", "reward", "return", "messages", "messages_per_episode")
MAX_CURVES = 8
MAX_LIST = 50

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#212529;padding:0 1rem}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #dee2e6;padding-bottom:.3rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:.3rem .6rem;
border-bottom:1px solid #eee;vertical-align:top}.muted{color:#6c757d}.grid{display:grid;
grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:1rem}code{font-size:.85em}
"""


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 10_000 else f"{value:.4g}"
    return escape(str(value))


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    if value < 90:
        return f"{value:.0f} s"
    return f"{value / 60:.0f} min" if value < 5400 else f"{value / 3600:.1f} h"


def _table(head: list[str], rows: list[list[str]]) -> str:
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def _curve_keys(series: dict[str, list]) -> list[str]:
    keys = [k for k in CURVE_ORDER if k in series]
    keys += sorted(k for k in series if k.startswith("eval_") and k not in keys)
    keys += sorted(k for k in series if k not in keys and not k.startswith(("golden.", "protocol.")))
    return keys[:MAX_CURVES]


def _curve(name: str, points: list[list[float]]) -> go.Figure:
    figure = go.Figure(
        go.Scatter(x=[p[0] for p in points], y=[p[1] for p in points], mode="lines", name=name)
    )
    figure.update_layout(
        title=name.replace("_", " "), height=320, margin={"l": 50, "r": 20, "t": 50, "b": 40},
        xaxis_title="episode", template="plotly_white",
    )  # fmt: skip
    return figure


def _attention(payload: dict) -> go.Figure | None:
    agents, matrix = payload.get("agents"), payload.get("matrix")
    if not isinstance(agents, list) or not isinstance(matrix, list) or len(matrix) != len(agents):
        return None
    figure = go.Figure(go.Heatmap(z=matrix, x=agents, y=agents, colorscale="Blues", zmin=0, zmax=1))
    figure.update_layout(
        title="Who listens to whom (last attention report; rows listen to columns)", height=420,
        margin={"l": 140, "r": 20, "t": 50, "b": 120}, template="plotly_white",
    )  # fmt: skip
    return figure


def _figures_html(figures: list[go.Figure]) -> str:
    parts = []
    for index, figure in enumerate(figures):
        parts.append(
            figure.to_html(full_html=False, include_plotlyjs=index == 0, config={"displaylogo": False})
        )
    return "".join(f"<div>{part}</div>" for part in parts)


def _facts(run: Run) -> str:
    training = run.spec.get("training") or {}
    source = run.source or {}
    team = {
        "workflow": f"workflow {source.get('workflow')} version {source.get('version')}",
        "template": f"gallery template {source.get('template_name') or source.get('template')}",
    }.get(source.get("kind"), "a spec document")
    rows = [
        ["State", escape(run.state)],
        ["Kind and device", escape(f"{run.kind} on {run.device}")],
        ["Team", escape(f"{run.spec.get('name', '–')} ({team})")],
        ["Algorithm", escape(str(training.get("algorithm", "reinforce")))],
        ["Training budget", f"{_num(training.get('episodes', '–'))} episodes"],
        ["Seed", _num(training.get("seed", "–"))],
        ["Wall time", _seconds(wall_seconds(run))],
        ["Created", escape(f"{run.created_at:%Y-%m-%d %H:%M} UTC by {run.created_by or '–'}")],
        ["Tags", escape(", ".join(t.name for t in run.tag_rows.all()) or "–")],
    ]
    if run.error:
        rows.append(["Error", f"<code>{escape(run.shown_error[:2000])}</code>"])
    return _table(["", ""], rows)


def _final(run: Run) -> str:
    metrics = {k: v for k, v in (run.metrics or {}).items() if isinstance(v, (int, float))}
    if not metrics:
        return "<p class='muted'>No final metrics (the run did not finish).</p>"
    note = ""
    if "episodes" in metrics:
        note = f"<p class='muted'>Measured on {_num(metrics.pop('episodes'))} evaluation episodes.</p>"
    return note + _table(
        ["Metric", "Value"], [[escape(k.replace("_", " ")), _num(v)] for k, v in sorted(metrics.items())]
    )


def _verdict(run: Run) -> str:
    """Learned vs rules vs imitation (the run's `verdict` event), when the run evaluated its baselines."""
    event = RunEvent.objects.filter(run=run, type="verdict").order_by("-seq").first()
    if event is None:
        return "<p class='muted'>This run did not evaluate its baselines.</p>"
    p = event.payload
    rows = [
        [
            escape(str(a.get("name"))),
            _num(a.get("mean")),
            f"{_num(a.get('low'))} – {_num(a.get('high'))}",
            _num(a.get("cost")),
        ]
        for a in p.get("arms", [])
    ]
    sentence = f"<p><b>{escape(str(p.get('sentence', '')))}</b></p>"
    return sentence + _table(["Arm", "Score", "95 % interval", "Cost / episode"], rows)


def _history(run: Run) -> str:
    events = list(
        RunEvent.objects.filter(run=run, type__in=("phase", "plateau"))
        .order_by("seq")
        .values_list("type", "payload")
    )
    if not events:
        return "<p class='muted'>No phase changes or plateau warnings.</p>"
    plateaus = sum(1 for kind, _ in events if kind == "plateau")
    rows = [
        [escape(f"{p.get('from', '?')} → {p.get('to', '?')}"), escape(str(p.get("reason", "")))]
        for kind, p in events
        if kind == "phase"
    ][:MAX_LIST]
    return f"<p>{len(rows)} phase change(s), {plateaus} plateau warning(s).</p>" + (
        _table(["Phase change", "Why"], rows) if rows else ""
    )


def _checkpoints(run: Run) -> str:
    rows = [
        [_num(c.step), escape(f"{c.created_at:%Y-%m-%d %H:%M}"), f"<code>{escape(c.shown_path)}</code>"]
        for c in run.checkpoints.order_by("-step")[:MAX_LIST]
    ]
    total = run.checkpoints.count()
    if not rows:
        return "<p class='muted'>No checkpoint was written.</p>"
    more = f"<p class='muted'>The {len(rows)} newest of {total}.</p>" if total > len(rows) else ""
    return more + _table(["Episode", "Written", "Path"], rows)


def render(run: Run) -> str:
    """The report of `run` as a complete HTML document."""
    series = metric_series(run)
    figures = [_curve(key, series[key]) for key in _curve_keys(series)]
    last = RunEvent.objects.filter(run=run, type="attention").order_by("-seq").first()
    heatmap = _attention(last.payload) if last is not None else None
    if heatmap is not None:
        figures.append(heatmap)
    charts = (
        f"<div class='grid'>{_figures_html(figures)}</div>"
        if figures
        else "<p class='muted'>No metrics reported.</p>"
    )
    communication = (
        ""
        if heatmap is not None
        else "<p class='muted'>This run reported no attention (no learned communication to draw).</p>"
    )
    title = escape(f"Run {run.pk}: {run.name}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} · MASE report</title><style>{STYLE}</style></head>
<body><h1>{title}</h1>
<p class="muted">MASE run report, exported {timezone.now():%Y-%m-%d %H:%M} UTC.</p>
<h2>Facts</h2>{_facts(run)}
<h2>Final metrics</h2>{_final(run)}
<h2>Did MARL pay?</h2>{_verdict(run)}
<h2>Learning curves</h2>{charts}{communication}
<h2>Evolution phases</h2>{_history(run)}
<h2>Checkpoints</h2>{_checkpoints(run)}
</body></html>"""
