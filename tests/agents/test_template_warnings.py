"""The shipped templates do not warn about themselves: no agent-count warning from the validator or the
advisor (number guessing's informants and distractors share what they hold; they decide nothing). The only
warning allowed is the truthful "design-only" note of a template that ships without an environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.advisor import advise
from agents.spec import spec_warnings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = sorted(EXAMPLES.glob("*.json"))
DESIGN_ONLY = "$.environment.name"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_shipped_template_raises_no_warning(path):
    doc = json.loads(path.read_text())
    design_only = (doc.get("environment") or {}).get("name") is None
    warnings = [(w.path, w.message) for w in spec_warnings(doc)]
    allowed = [DESIGN_ONLY] if design_only else []
    assert [p for p, _ in warnings if p not in allowed] == [], warnings
    assert advise(doc).warnings == ()
