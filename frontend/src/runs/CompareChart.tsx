import { useMemo } from "react";
import { PlotlyChart } from "./PlotlyChart";
import { runLabel, runStyle } from "./compareStyle";
import { metricLabel } from "./format";
import type { CompareRun } from "./types";

/** One metric of several runs overlaid against episodes; each run keeps its own colour, dash and marker. */
export function CompareChart({ runs, metric }: { runs: CompareRun[]; metric: string }) {
  const data = useMemo(
    () =>
      runs.map((run, index) => {
        const points = run.series[metric] ?? [];
        const style = runStyle(index);
        return {
          type: "scatter",
          mode: "lines+markers",
          name: runLabel(run, runs),
          x: points.map((p) => p[0]),
          y: points.map((p) => p[1]),
          line: { color: style.colour, dash: style.dash, width: 2 },
          // Markers at most ~12 per curve keep long curves readable and the runs apart.
          marker: { symbol: style.symbol, size: 7, color: style.colour, maxdisplayed: 12 },
        };
      }),
    [runs, metric],
  );
  const layout = useMemo(
    () => ({
      xaxis: { title: { text: "episode" } },
      yaxis: { title: { text: metricLabel(metric) } },
      legend: { orientation: "h", x: 0, y: -0.18, yanchor: "top" },
      margin: { l: 56, r: 16, t: 16, b: 80 },
    }),
    [metric],
  );
  return <PlotlyChart data={data} layout={layout} height={460} testId="compare-chart" label={`${metricLabel(metric)} of the compared runs`} />;
}
