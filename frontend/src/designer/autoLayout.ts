import dagre from "@dagrejs/dagre";
import type { EdgeSpec, Layout } from "./types";

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 64;

/** Left-to-right positions for agents: dependency edges decide the ranks (all edges when none). */
export function autoLayout(agentIds: string[], edges: EdgeSpec[]): Layout {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 90, marginx: 20, marginy: 20 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const id of agentIds) graph.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  const known = new Set(agentIds);
  const dependencies = edges.filter((e) => e.kind === "dependency");
  for (const e of dependencies.length ? dependencies : edges) {
    if (known.has(e.source) && known.has(e.target) && e.source !== e.target) graph.setEdge(e.source, e.target);
  }
  dagre.layout(graph);
  const layout: Layout = {};
  for (const id of agentIds) {
    const node = graph.node(id);
    // dagre gives centres; React Flow positions are top-left corners.
    layout[id] = { x: Math.round(node.x - NODE_WIDTH / 2), y: Math.round(node.y - NODE_HEIGHT / 2) };
  }
  return layout;
}
