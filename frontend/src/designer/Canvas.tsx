import {
  Background,
  Controls,
  type Edge,
  MarkerType,
  MiniMap,
  type NodeChange,
  ReactFlow,
  useNodesInitialized,
  useReactFlow,
} from "@xyflow/react";
import type React from "react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { type AgentFlowNode, AgentNode } from "./AgentNode";
import { CommunicationEdge } from "./CommunicationEdge";
import { groupSizes } from "./groupSizes";
import { LearnedEdgeView } from "./LearnedEdge";
import { twoWayPartners } from "./linkPairs";
import { formatWeight, LearnedLegend, learnedFlowEdges, useOverlayModel } from "./LearnedOverlay";
import { ROLE_MIME } from "./Palette";
import { describePath, messageInWords } from "./problemWords";
import { problemTargets, useDesigner } from "./store";
import type { EnvParam, RoleInfo } from "./types";

const nodeTypes = { agent: AgentNode };
/** Room around the agents when fitting the view: links curve out beyond the boxes they join. Never above
 * natural size: fitting one or two agents on a new canvas zoomed to 2x, so the next role dropped at a free
 * spot landed on top of the first. */
export const FIT_VIEW = { padding: 0.15, maxZoom: 1 };
const edgeTypes = { learned: LearnedEdgeView, communication: CommunicationEdge };

interface Props {
  roles: RoleInfo[];
  /** The environments' parameters (the catalogue's): where a team is drawn by groups, each box shows its size. */
  environments?: Record<string, EnvParam[]>;
}

/** The workflow canvas: agents as nodes, dependency (solid arrow) and communication (dashed) edges. */
export function Canvas({ roles, environments = {} }: Props) {
  const spec = useDesigner((s) => s.spec);
  const layout = useDesigner((s) => s.layout);
  const selection = useDesigner((s) => s.selection);
  const report = useDesigner((s) => s.report);
  const diff = useDesigner((s) => s.diff);
  const readOnly = useDesigner((s) => s.readOnly);
  const { select, moveAgent, connect, addAgent } = useDesigner.getState();
  const { screenToFlowPosition, fitView } = useReactFlow();
  const canvasRef = useRef<HTMLDivElement>(null);
  // The view fits the agents once they are drawn and again whenever the canvas changes size, until the
  // user pans or zooms: panels around the canvas settle after the first fit and would cut agents off.
  const userMoved = useRef(false);
  const nodesInitialized = useNodesInitialized();
  useEffect(() => {
    if (nodesInitialized && !userMoved.current) void fitView(FIT_VIEW);
  }, [nodesInitialized, fitView]);
  useEffect(() => {
    const element = canvasRef.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      if (!userMoved.current) void fitView(FIT_VIEW);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [fitView]);
  // Measured node sizes are view state, not design state: they stay here, out of the store.
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});

  const problemsByAgent = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const e of report?.errors ?? []) {
      const m = /^\$\.agents\[(\d+)\]/.exec(e.path);
      const id = m ? spec.agents[Number(m[1])]?.id : undefined;
      if (id) map.set(id, [...(map.get(id) ?? []), `${describePath(spec, e.path).words}: ${messageInWords(spec, e.message)}`]);
    }
    return map;
  }, [report, spec]);

  const roleInfo = useMemo(() => new Map(roles.map((r) => [r.name, r])), [roles]);
  const sizes = useMemo(() => groupSizes(spec.environment, environments), [spec.environment, environments]);

  const nodes: AgentFlowNode[] = useMemo(
    () =>
      spec.agents.map((agent) => ({
        id: agent.id,
        type: "agent",
        position: layout[agent.id] ?? { x: 0, y: 0 },
        selected: selection?.kind === "agent" && selection.id === agent.id,
        measured: measured[agent.id],
        data: {
          agentId: agent.id,
          role: String(agent.role ?? ""),
          roleDescription: roleInfo.get(String(agent.role))?.description ?? "Unknown role",
          problems: problemsByAgent.get(agent.id) ?? [],
          diffState: diff?.agents.added.includes(agent.id)
            ? "added"
            : diff?.agents.changed.includes(agent.id)
              ? "changed"
              : null,
          members: (sizes[agent.id] ?? 1) > 1 ? sizes[agent.id] : null,
        },
      })),
    [spec.agents, layout, selection, measured, roleInfo, problemsByAgent, diff, sizes],
  );

  const badEdges = useMemo(
    () => problemTargets(spec, (report?.errors ?? []).map((e) => e.path)).edges,
    [spec, report],
  );

  // The learned-communication overlay: view-only edges drawn on top, never part of the spec.
  const overlay = useOverlayModel();

  const edges: Edge[] = useMemo(() => {
    const designed = spec.edges ?? [];
    const partners = twoWayPartners(
      designed,
      (a, b) => badEdges.has(a) === badEdges.has(b) && overlay?.unused.get(a) === overlay?.unused.get(b),
    );
    return [
      ...designed.flatMap((edge, index) => {
        const dependency = edge.kind === "dependency";
        const unused = overlay?.unused.get(index);
        const partner = partners.get(index);
        if (partner !== undefined && partner < index) return []; // drawn with its partner, as one link
        const twoWay = partner !== undefined;
        const marker = { type: MarkerType.ArrowClosed, width: 16, height: 16 };
        const selected =
          selection?.kind === "edge" && (selection.index === index || (twoWay && selection.index === partner));
        return {
          id: `e${index}`,
          // Communication links are routed between the facing sides of their agents, so many of them stay apart.
          type: dependency ? undefined : "communication",
          source: edge.source,
          target: edge.target,
          // Dependencies run left to right, communication links leave below and arrive on top.
          sourceHandle: dependency ? "dep-out" : "comm-out",
          targetHandle: dependency ? "dep-in" : "comm-in",
          selected,
          className: `${dependency ? "edge-dependency" : "edge-communication"}${twoWay ? " edge-two-way" : ""}${badEdges.has(index) ? " edge-problem" : ""}${unused !== undefined ? " edge-unused" : ""}`,
          markerEnd: marker,
          markerStart: twoWay ? marker : undefined,
          // A two-way link flows both ways, so it is not animated in one direction.
          animated: !dependency && !twoWay && unused === undefined,
          ariaLabel:
            `${edge.kind ?? "communication"} edge from ${edge.source} to ${edge.target}${twoWay ? " and back" : ""}` +
            (unused !== undefined ? `, unused by the team (weight ${formatWeight(unused)})` : ""),
        };
      }),
      ...learnedFlowEdges(overlay),
    ];
  }, [spec.edges, selection, badEdges, overlay]);

  const onNodesChange = useCallback(
    (changes: NodeChange<AgentFlowNode>[]) => {
      const sizes: Record<string, { width: number; height: number }> = {};
      for (const change of changes) {
        if (change.type === "position" && change.position) {
          moveAgent(change.id, change.position, !change.dragging);
        } else if (change.type === "dimensions" && change.dimensions) {
          sizes[change.id] = change.dimensions;
        }
      }
      if (Object.keys(sizes).length) setMeasured((old) => ({ ...old, ...sizes }));
    },
    [moveAgent],
  );

  const onDrop = (event: React.DragEvent) => {
    event.preventDefault();
    const name = event.dataTransfer.getData(ROLE_MIME);
    const role = roleInfo.get(name);
    if (!role || readOnly) return;
    const point = screenToFlowPosition({ x: event.clientX, y: event.clientY });
    addAgent(role, { x: Math.round(point.x - 90), y: Math.round(point.y - 30) });
  };

  return (
    <div className="canvas" ref={canvasRef} onDrop={onDrop} onDragOver={(e) => e.preventDefault()} data-testid="canvas">
      <ReactFlow<AgentFlowNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onNodeClick={(_, node) => select({ kind: "agent", id: node.id })}
        onEdgeClick={(_, edge) => edge.type !== "learned" && select({ kind: "edge", index: Number(edge.id.slice(1)) })}
        onPaneClick={() => select(null)}
        onMoveStart={(event) => {
          if (event) userMoved.current = true; // a pan or zoom by the user, not one of ours
        }}
        onConnect={(c) =>
          c.source && c.target && connect(c.source, c.target, c.sourceHandle === "dep-out" ? "dependency" : "communication")
        }
        isValidConnection={(c) => c.source !== c.target}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        fitView
        fitViewOptions={FIT_VIEW}
        minZoom={0.2}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable ariaLabel="Minimap of the workflow" />
      </ReactFlow>
      <LearnedLegend model={overlay} />
      {spec.agents.length === 0 && (
        <div className="canvas-empty">
          <strong>No agents yet.</strong>
          <span>Drag a role from the palette on the left onto this canvas, then drag from an agent's right dot to another agent for a workflow dependency, or from its bottom dot for a communication link.</span>
        </div>
      )}
    </div>
  );
}
