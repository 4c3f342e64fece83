import pytest

from agents.graph import communication_graph


def test_edges_follow_the_message_path_and_drop_light_weights():
    graph = communication_graph(["a", "b", "c"], [[0, 0.9, 0.1], [0.5, 0, 0.005], [0.3, 0.7, 0]])
    edges = {(e["source"], e["target"]): e["weight"] for e in graph["edges"]}
    assert edges[("b", "a")] == 0.9  # a listens to b: the message travels b → a
    assert ("c", "b") not in edges  # under min_weight
    assert len(edges) == 5


def test_positions_depend_only_on_the_team():
    first = communication_graph(["a", "b", "c"], [[0, 1, 0], [1, 0, 0], [1, 0, 0]])
    second = communication_graph(["a", "b", "c"], [[0, 0, 1], [0, 0, 1], [0, 1, 0]])
    assert first["nodes"] == second["nodes"]
    assert len({(n["x"], n["y"]) for n in first["nodes"]}) == 3


def test_shape_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match="must be 2×2"):
        communication_graph(["a", "b"], [[0, 1, 2]])
