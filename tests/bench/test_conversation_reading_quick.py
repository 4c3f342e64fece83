"""bench/conversation_reading.py --quick reads its hand-written messages and writes every documented key."""

from __future__ import annotations

import pytest


@pytest.mark.slow  # loads the default backbone in a fresh process
def test_quick_reading_writes_every_key(run_quick_bench):
    result = run_quick_bench("conversation_reading")["conversation_reading"]
    for fact in ("problem", "goal"):
        assert set(result[fact]) == {"named", "stated", "right", "right_of_stated"}
        assert all(0 <= result[fact][k] <= 1 for k in ("stated", "right", "right_of_stated"))
    assert result["problem"]["named"] == 8 and len(result["examples"]) == 8
    assert set(result["vague"]) == {"messages", "nothing_stated"}
