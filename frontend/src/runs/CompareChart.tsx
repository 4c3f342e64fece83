import { useMemo } from "react";
import { PlotlyChart } from "./PlotlyChart";
import { metricLabel } from "./format";
import type { CompareRun } from "./types";

/** One metric of several runs overlaid against episodes. */
export function CompareChart({ runs, metric }: { runs: CompareRun[]; metric: string }) {
  const data = useMemo(
    () =>
      runs.map((run) => {
        const points = run.series[metric] ?? [];
        return {
          type: "scatter",
          mode: points.length > 60 ? "lines" : "lines+markers",
          name: `#${run.id} ${run.name}`,
          x: points.map((p) => p[0]),
          y: points.map((p) => p[1]),
        };
      }),
    [runs, metric],
  );
  const layout = useMemo(
    () => ({
      xaxis: { title: { text: "episode" } },
      yaxis: { title: { text: metricLabel(metric) } },
      legend: { orientation: "h", y: -0.2 },
      margin: { l: 56, r: 16, t: 16, b: 60 },
    }),
    [metric],
  );
  return <PlotlyChart data={data} layout={layout} height={420} testId="compare-chart" label={`${metricLabel(metric)} of the compared runs`} />;
}
