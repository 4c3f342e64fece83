import dagre from "@dagrejs/dagre";
import type { EdgeSpec, Layout } from "./types";

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 64;

/** Left-to-right positions for agents: dependency edges decide the ranks (all edges when none); agents
 * move clear of dependencies that skip their column, and columns of three or more bend into arcs. */
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
  const centres = new Map(agentIds.map((id) => [id, { x: graph.node(id).x, y: graph.node(id).y }]));
  clearSkippedAgents(centres, dependencies);
  bendColumnsIntoArcs(centres, edges);
  const layout: Layout = {};
  for (const [id, c] of centres) {
    // dagre gives centres; React Flow positions are top-left corners.
    layout[id] = { x: Math.round(c.x - NODE_WIDTH / 2), y: Math.round(c.y - NODE_HEIGHT / 2) };
  }
  return layout;
}

/** How far (between centres) an agent keeps from a dependency that skips over its column. */
export const SKIP_CLEARANCE = NODE_HEIGHT * 2.5;

/** A dependency that skips a column is drawn almost straight across it, and dagre may leave an agent of
 * that column just beside the line (its links then run along the dependency). Such an agent moves above
 * the line until it is well clear: below it run the communication links back against the flow (right to
 * left), which bend to the left of their direction (see floatingPath). */
function clearSkippedAgents(centres: Map<string, { x: number; y: number }>, dependencies: EdgeSpec[]): void {
  for (const e of dependencies) {
    const [a, b] = [centres.get(e.source), centres.get(e.target)];
    if (!a || !b || e.source === e.target) continue;
    const [left, right] = a.x < b.x ? [a, b] : [b, a];
    for (const [id, c] of centres) {
      if (id === e.source || id === e.target || c.x <= left.x + NODE_WIDTH / 2 || c.x >= right.x - NODE_WIDTH / 2) continue;
      const onLine = left.y + ((right.y - left.y) * (c.x - left.x)) / (right.x - left.x);
      if (Math.abs(c.y - onLine) < SKIP_CLEARANCE) c.y = onLine - SKIP_CLEARANCE;
    }
  }
}

/** How far the middle of a column of three is brought forward when it is bent into an arc. */
export const ARC_DEPTH = Math.round(NODE_WIDTH * 0.8);

/** How much further apart the agents of a column are set when its middle comes forward. */
const ARC_SPREAD = 1.6;

/** A straight column of three or more agents draws its links badly: one between two agents that are not
 * next to each other runs behind the agents between them, and the links of its far ends to an agent in
 * the next column leave steeply, past their neighbours. So such a column is bent into an arc. When links
 * join agents of the column across others, its middle comes forward (right), inside the triangle of its
 * ends and the next column: the link between the ends passes behind it, the ends' links to the right
 * pass above and below it. Otherwise its ends come forward, round the agents its links fan into, so
 * every link runs at a gentle slope. Longer columns bend deeper; the columns to the right move over by
 * as much, to keep their gap. */
function bendColumnsIntoArcs(centres: Map<string, { x: number; y: number }>, edges: EdgeSpec[]): void {
  const columns = new Map<number, string[]>();
  for (const [id, c] of centres) columns.set(Math.round(c.x), [...(columns.get(Math.round(c.x)) ?? []), id]);
  let pushed = 0;
  for (const x of [...columns.keys()].sort((a, b) => a - b)) {
    const ids = columns.get(x)!.sort((a, b) => centres.get(a)!.y - centres.get(b)!.y);
    const depth = ids.length >= 3 ? Math.round(ARC_DEPTH * Math.max(1, (ids.length - 1) / 2)) : 0;
    const place = new Map(ids.map((id, i) => [id, i]));
    const across = edges.some((e) => {
      const [a, b] = [place.get(e.source), place.get(e.target)];
      return a !== undefined && b !== undefined && Math.abs(a - b) > 1;
    });
    const mean = ids.reduce((sum, id) => sum + centres.get(id)!.y, 0) / ids.length;
    ids.forEach((id, i) => {
      const c = centres.get(id)!;
      const middle = depth ? Math.sin((Math.PI * i) / (ids.length - 1)) : 0;
      c.x += pushed + depth * (across ? middle : 1 - middle);
      // Spread apart, so the ends' links to the right pass well clear of the middle brought forward.
      if (depth && across) c.y = mean + (c.y - mean) * ARC_SPREAD;
    });
    pushed += depth;
  }
}
