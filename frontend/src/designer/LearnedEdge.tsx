import { BaseEdge, type Edge, type EdgeProps } from "@xyflow/react";

export type LearnedFlowEdge = Edge<{ weight: number }, "learned">;

/** How far (px) a learned edge bows out to the right of its direction, so that it does not hide the
 * designed link under it and the two directions of a pair run side by side. */
const BOW = 45;

/** A learned link drawn as a bowed curve, its width ∝ weight; the weight label shows on hover (CSS). */
export function LearnedEdgeView({ sourceX, sourceY, targetX, targetY, data, markerEnd, style }: EdgeProps<LearnedFlowEdge>) {
  const dx = targetX - sourceX;
  const dy = targetY - sourceY;
  const length = Math.hypot(dx, dy) || 1;
  const cx = (sourceX + targetX) / 2 - (dy / length) * BOW;
  const cy = (sourceY + targetY) / 2 + (dx / length) * BOW;
  // The label sits on the curve's midpoint (t = 0.5 of the quadratic Bézier).
  const labelX = 0.25 * sourceX + 0.5 * cx + 0.25 * targetX;
  const labelY = 0.25 * sourceY + 0.5 * cy + 0.25 * targetY;
  return (
    <BaseEdge
      path={`M ${sourceX},${sourceY} Q ${cx},${cy} ${targetX},${targetY}`}
      labelX={labelX}
      labelY={labelY}
      label={data ? data.weight.toFixed(2) : undefined}
      labelShowBg
      labelBgPadding={[4, 2]}
      labelBgBorderRadius={4}
      markerEnd={markerEnd}
      style={style}
      interactionWidth={14}
    />
  );
}
