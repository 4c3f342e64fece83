"""bench/peers.py --quick: MASE's MAPPO and IPPO on simple_spread (no BenchMARL virtualenv), the documented
keys, and that both arms learn something within the quick budget."""

from __future__ import annotations

import pytest

from agents.envs.mpe import mpe_available


@pytest.mark.slow  # two 6,000-frame MASE runs side by side: ~1–2 min on the shared 2-core machine
@pytest.mark.skipif(not mpe_available(), reason="the mpe2 package is not installed (pip install mpe2)")
def test_peers_quick_mase_arms_learn(run_quick_bench):
    doc = run_quick_bench("peers", timeout=400)
    assert doc["quick"] is True and doc["peers"] is False
    arms = doc["tasks"]["simple_spread"]
    assert set(arms) == {"mase_mappo", "mase_ippo"}
    for arm, figures in arms.items():
        assert {"final_return", "return_sd", "frames", "frames_per_second", "seconds", "curve"} <= set(
            figures
        ), arm
        assert figures["frames"] == 6000 and figures["frames_per_second"] > 0
        start = figures["curve"][0]
        assert start["frames"] == 0
        assert figures["final_return"] > start["return"] + 2.0, (
            arm,
            figures["curve"],
        )  # it learned something
