"""`validate_spec`: every error of a team-spec document, each with its JSON path (never raises)."""

from __future__ import annotations

import json
import logging
from typing import Any

from agents.errors import SpecError
from agents.spec.checks import _allowed_keys
from agents.spec.migrate import migrate
from agents.spec.nodes import TeamSpec
from agents.spec.options import LIMITS, SPEC_VERSION
from agents.spec.paths import path_problems, without_paths
from agents.spec.run_checks import _RunChecks
from agents.spec.team_checks import _TeamChecks

__all__ = ["validate_spec"]

log = logging.getLogger(__name__)


class _Validator(_TeamChecks, _RunChecks):
    """Collects every error of one document, section by section."""

    def document(self, doc: Any, require_environment: bool) -> None:
        if not self.guard_size(doc):
            return
        top = self.obj(doc, "$", _allowed_keys(TeamSpec), required=("name", "agents"))
        if top is None:
            return
        if "spec_version" in top:
            v = top["spec_version"]
            if isinstance(v, bool) or not isinstance(v, int) or v != SPEC_VERSION:
                self.err(
                    "$.spec_version",
                    f"unsupported spec version {json.dumps(v)[:40]}; this MASE reads version {SPEC_VERSION}",
                )
        self.string(top, "$", "name", max_len=LIMITS["name_chars"])
        self.string(top, "$", "description", max_len=LIMITS["description_chars"], allow_empty=True)
        self.backbone(top)
        ids = self.agents(top)
        self.edges(top, ids)
        self.communication(top)
        phases = self.evolution(top)
        self.reward(top, phases)
        self.curriculum(top)
        self.circuit_breaker(top)
        self.fallback(top, ids)
        self.environment(top, ids, require_environment)
        self.training(top)
        self.resources(top)


def validate_spec(doc: Any, *, require_environment: bool = False, confined: bool = False) -> list[SpecError]:
    """Every error in a team-spec document, each with its JSON path; [] when the spec is valid.

    Never raises, whatever `doc` is (wrong types, deep nesting, huge documents). With
    `require_environment=True` a design-only spec (environment name null) is an error too. With
    `confined=True` (a server) files are named, never given as paths (`agents.spec.paths`), and the
    validator opens no path the document holds.
    """
    doc = migrate(doc)
    v = _Validator(confined)
    if confined:
        v.errors += [SpecError(path, message) for path, message in path_problems(doc)]
        doc = without_paths(doc)
    try:
        v.document(doc, require_environment)
    except Exception as exc:  # a validator bug must not turn hostile input into a 500; log it loudly
        log.exception("team spec validator failed")
        v.err("$", f"the document could not be validated ({type(exc).__name__}: {exc})")
    if v.dropped:
        v.errors.append(
            SpecError("$", f"… and {v.dropped:,} more errors not listed; fix the ones above first")
        )
    return v.errors
