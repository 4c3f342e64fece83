"""The settings diff of the compare page: every setting that differs is listed, edges included."""

from __future__ import annotations

from mase_web.runs.comparison import MISSING, config_diff


def edge(source: str, target: str, kind: str) -> dict:
    return {"source": source, "target": target, "kind": kind}


def test_a_dependency_edge_sharing_endpoints_with_a_communication_edge_is_not_lost():
    both = {"edges": [edge("a", "b", "dependency"), edge("a", "b", "communication")]}
    talk_only = {"edges": [edge("a", "b", "communication")]}
    diff = {row["path"]: row["values"] for row in config_diff([both, talk_only])}
    # Keyed by endpoints alone, the communication edge overwrote the dependency and the diff was empty.
    assert diff == {
        "edges[dependency a→b].source": ["a", MISSING],
        "edges[dependency a→b].target": ["b", MISSING],
        "edges[dependency a→b].kind": ["dependency", MISSING],
    }


def test_repeated_items_with_one_name_are_told_apart_by_position():
    twice = {"edges": [edge("a", "b", "communication"), edge("a", "b", "communication")]}
    once = {"edges": [edge("a", "b", "communication")]}
    paths = {row["path"] for row in config_diff([twice, once])}
    assert paths == {f"edges[communication a→b #1].{field}" for field in ("source", "target", "kind")}


def test_equal_specs_have_no_diff():
    spec = {"edges": [edge("a", "b", "dependency"), edge("a", "b", "communication")], "training": {"lr": 0.1}}
    assert config_diff([spec, spec]) == []
