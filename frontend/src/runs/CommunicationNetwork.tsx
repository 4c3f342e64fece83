import type { CommunicationGraph } from "./types";

interface Props {
  graph: CommunicationGraph;
  /** Edges lighter than this are hidden to keep the picture readable. */
  minWeight: number;
}

const SIZE = 340;
const PAD = 56;
const NODE_R = 20;

/**
 * The communication graph drawn at the coordinates networkx computed on the server: an arrow from
 * speaker to listener for each attention weight, as wide and as opaque as the weight.
 */
export function CommunicationNetwork({ graph, minWeight }: Props) {
  const xs = graph.nodes.map((n) => n.x);
  const ys = graph.nodes.map((n) => n.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = (v: number, lo: number, hi: number) => (hi - lo < 1e-9 ? SIZE / 2 : PAD + ((v - lo) / (hi - lo)) * (SIZE - 2 * PAD));
  // networkx's y axis points up; the SVG's points down.
  const at = new Map(graph.nodes.map((n) => [n.id, { x: scale(n.x, minX, maxX), y: SIZE - scale(n.y, minY, maxY) }]));
  const edges = graph.edges.filter((e) => e.weight >= minWeight && at.has(e.source) && at.has(e.target));

  return (
    <svg
      className="network"
      viewBox={`0 0 ${SIZE} ${SIZE}`}
      role="img"
      aria-label="Communication network"
      data-testid="communication-network"
      data-edges={edges.length}
    >
      <defs>
        <marker id="comm-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#3b5bdb" />
        </marker>
      </defs>
      {edges.map((e) => {
        const from = at.get(e.source)!;
        const to = at.get(e.target)!;
        const dx = to.x - from.x;
        const dy = to.y - from.y;
        const length = Math.hypot(dx, dy) || 1;
        // Bend each edge a little so A→B and B→A do not overlap; stop it at the listener's circle.
        const nx = -dy / length;
        const ny = dx / length;
        const bend = 14;
        const cx = (from.x + to.x) / 2 + nx * bend;
        const cy = (from.y + to.y) / 2 + ny * bend;
        const ex = to.x - ((to.x - cx) / Math.hypot(to.x - cx, to.y - cy)) * (NODE_R + 2);
        const ey = to.y - ((to.y - cy) / Math.hypot(to.x - cx, to.y - cy)) * (NODE_R + 2);
        return (
          <path
            key={`${e.source}->${e.target}`}
            className="edge"
            d={`M ${from.x} ${from.y} Q ${cx} ${cy} ${ex} ${ey}`}
            strokeWidth={0.5 + 7 * e.weight}
            strokeOpacity={0.25 + 0.75 * e.weight}
            markerEnd="url(#comm-arrow)"
          >
            <title>{`${e.source} → ${e.target}: ${e.weight.toFixed(3)}`}</title>
          </path>
        );
      })}
      {graph.nodes.map((n) => {
        const p = at.get(n.id)!;
        return (
          <g key={n.id} className="node" transform={`translate(${p.x} ${p.y})`}>
            <circle r={NODE_R} />
            <text y={NODE_R + 14} textAnchor="middle">
              {n.id}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
