"""The communication graph of a team as nodes with coordinates and weighted edges.

The layout is computed here with networkx, once, so the browser and the CLI draw the same picture.
Positions depend only on the agent list (a circle in team order), so a replay over time moves
edges, never nodes.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx


def communication_graph(
    agents: Sequence[str], matrix: Sequence[Sequence[float]], min_weight: float = 0.01
) -> dict:
    """`matrix[i][j]` is how much agent i listens to agent j; edges run j → i (the message's path)."""
    if len(matrix) != len(agents) or any(len(row) != len(agents) for row in matrix):
        raise ValueError(f"attention matrix must be {len(agents)}×{len(agents)} for agents {list(agents)}")
    graph = nx.DiGraph()
    graph.add_nodes_from(agents)
    for i, listener in enumerate(agents):
        for j, speaker in enumerate(agents):
            weight = float(matrix[i][j])
            if i != j and weight >= min_weight:
                graph.add_edge(speaker, listener, weight=weight)
    positions = nx.circular_layout(graph.subgraph(agents)) if agents else {}
    return {
        "nodes": [
            {"id": a, "x": round(float(positions[a][0]), 4), "y": round(float(positions[a][1]), 4)}
            for a in agents
        ],
        "edges": [
            {"source": s, "target": t, "weight": round(d["weight"], 4)} for s, t, d in graph.edges(data=True)
        ],
    }
