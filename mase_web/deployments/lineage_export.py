"""A deployment's lineage as a file: one row per generation with its figures against its parent (CSV for a
spreadsheet, JSON for a script). Who may see the deployment may export it."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.views import APIView

from mase_web.deployments.evolution import first_generation
from mase_web.deployments.evolution_api import _deployment, lineage

COLUMNS = [
    "generation", "parent", "status", "phase", "run", "trigger", "rows_added", "rows_total", "start",
    "compared_on_tickets", "parent_exact_match", "exact_match", "gain", "gain_low", "gain_high", "p_value",
    "promote_by_rule", "reason", "created_by", "created_at", "promoted_by", "promoted_at",
]  # fmt: skip
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def rows(lineage_data: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for g in lineage_data["generations"]:
        data, c = g.get("data") or {}, g.get("comparison") or {}
        low, high = (c.get("interval") or [None, None])[:2]
        out.append({
            "generation": g["number"], "parent": g["parent"], "status": g["status"], "phase": g["phase"],
            "run": g["run"], "trigger": data.get("trigger", ""), "rows_added": data.get("rows_added"),
            "rows_total": data.get("rows_total"), "start": data.get("start", ""),
            "compared_on_tickets": c.get("tickets"), "parent_exact_match": c.get("champion"),
            "exact_match": c.get("challenger"), "gain": c.get("gain"), "gain_low": low, "gain_high": high,
            "p_value": c.get("p_value"), "promote_by_rule": c.get("promote"), "reason": g["reason"],
            "created_by": g["created_by"], "created_at": g["created_at"], "promoted_by": g["promoted_by"],
            "promoted_at": g["promoted_at"],
        })  # fmt: skip
    return out


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet would read as a formula (a user name, a reason) is kept as text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return "" if value is None else value


def as_csv(table: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in table:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return buffer.getvalue()


class LineageExportView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("as", str, enum=["csv", "json"], description="the file's format (json)")
        ],
        responses={(200, "text/csv"): OpenApiTypes.STR, (200, "application/json"): OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int):
        """The lineage as a download: a row per generation (CSV) or the policy and rows (JSON)."""
        kind = request.query_params.get("as", "json")
        if kind not in ("csv", "json"):
            raise ValidationError({"as": ["choose csv or json"]})
        deployment = _deployment(request.user, pk)
        first_generation(deployment)
        data = lineage(deployment)
        table = rows(data)
        if kind == "csv":
            response = HttpResponse(as_csv(table), content_type="text/csv; charset=utf-8")
        else:
            body = {"deployment": deployment.pk, "name": deployment.name, "policy": data["policy"],
                    "slice_tickets": data["slice_tickets"], "generations": table}  # fmt: skip
            response = HttpResponse(json.dumps(body, indent=1, default=str), content_type="application/json")
        response["Content-Disposition"] = (
            f'attachment; filename="deployment-{deployment.pk}-generations.{kind}"'
        )
        return response
