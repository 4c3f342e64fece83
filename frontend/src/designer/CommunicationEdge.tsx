import { BaseEdge, type EdgeProps, type InternalNode, useInternalNode, useStore } from "@xyflow/react";
import { NODE_HEIGHT, NODE_WIDTH } from "./autoLayout";
import { type Box, floatingPath } from "./floatingPath";

/** How far (px) a two-way link bows out of the straight line, against 28 for a one-way link. */
export const TWO_WAY_BEND = 44;

function boxOf(node: InternalNode | undefined): Box | null {
  if (!node) return null;
  const { x, y } = node.internals.positionAbsolute;
  return { x, y, width: node.measured.width ?? NODE_WIDTH, height: node.measured.height ?? NODE_HEIGHT };
}

/** A designed communication link, routed between the agents' facing sides and round the agents in
 * between (see floatingPath), so that many links stay apart and each can be followed by eye. A two-way
 * pair is one such link with an arrowhead at each end (see linkPairs). */
export function CommunicationEdge({ id, source, target, markerStart, markerEnd, style, sourceX, sourceY, targetX, targetY }: EdgeProps) {
  // A two-way link bows out further: it stands for both directions, with nothing beside it.
  const bend = markerStart ? TWO_WAY_BEND : undefined;
  const from = boxOf(useInternalNode(source));
  const to = boxOf(useInternalNode(target));
  const lookup = useStore((s) => s.nodeLookup);
  let path = `M ${sourceX},${sourceY} L ${targetX},${targetY}`;
  if (from && to) {
    const others = [...lookup.values()].filter((n) => n.id !== source && n.id !== target).map(boxOf);
    path = floatingPath(from, to, others.filter((b): b is Box => b !== null), bend).path;
  }
  return <BaseEdge id={id} path={path} markerStart={markerStart} markerEnd={markerEnd} style={style} interactionWidth={14} />;
}
