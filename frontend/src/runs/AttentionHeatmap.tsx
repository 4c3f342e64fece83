import { useMemo } from "react";
import { PlotlyChart } from "./PlotlyChart";
import type { AttentionFrame } from "./types";

/** α_ij as a heat map: row = the listening agent i, column = the agent j it listens to. */
export function AttentionHeatmap({ frame }: { frame: AttentionFrame }) {
  const { agents, matrix } = frame;
  const data = useMemo(
    () => [
      {
        type: "heatmap",
        z: matrix,
        x: agents,
        y: agents,
        zmin: 0,
        zmax: 1,
        // Light = ignored, dark = listened to.
        colorscale: [
          [0, "#f8f9fc"],
          [1, "#1c3faa"],
        ],
        colorbar: { title: { text: "α" }, thickness: 12 },
        hovertemplate: "%{y} listens to %{x}: %{z:.3f}<extra></extra>",
        // Small teams get the numbers printed in the cells.
        texttemplate: agents.length <= 8 ? "%{z:.2f}" : "",
      },
    ],
    [agents, matrix],
  );
  // Room for the longest agent id, so labels such as "shopping_guide" are never cut; automargin grows
  // the margin further when the font measures wider than this estimate.
  const longest = Math.max(4, ...agents.map((a) => a.length));
  const layout = useMemo(
    () => ({
      margin: { l: 36 + 7 * longest, r: 10, t: 10, b: 40 + 5 * longest },
      xaxis: { title: { text: "speaker j" }, side: "bottom", tickangle: -30, automargin: true },
      yaxis: { title: { text: "listener i" }, autorange: "reversed", automargin: true },
    }),
    [longest],
  );
  return <PlotlyChart data={data} layout={layout} height={340} testId="attention-heatmap" label="Attention heat map" />;
}
