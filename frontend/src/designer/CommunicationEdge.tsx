import { BaseEdge, type EdgeProps, type InternalNode, useInternalNode, useStore } from "@xyflow/react";
import { NODE_HEIGHT, NODE_WIDTH } from "./autoLayout";
import { type Box, floatingPath } from "./floatingPath";

function boxOf(node: InternalNode | undefined): Box | null {
  if (!node) return null;
  const { x, y } = node.internals.positionAbsolute;
  return { x, y, width: node.measured.width ?? NODE_WIDTH, height: node.measured.height ?? NODE_HEIGHT };
}

/** A designed communication link, routed between the agents' facing sides and round the agents in
 * between (see floatingPath), so that many links stay apart and each can be followed by eye. */
export function CommunicationEdge({ id, source, target, markerEnd, style, sourceX, sourceY, targetX, targetY }: EdgeProps) {
  const from = boxOf(useInternalNode(source));
  const to = boxOf(useInternalNode(target));
  const lookup = useStore((s) => s.nodeLookup);
  let path = `M ${sourceX},${sourceY} L ${targetX},${targetY}`;
  if (from && to) {
    const others = [...lookup.values()].filter((n) => n.id !== source && n.id !== target).map(boxOf);
    path = floatingPath(from, to, others.filter((b): b is Box => b !== null)).path;
  }
  return <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} interactionWidth={14} />;
}
