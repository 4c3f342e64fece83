import { useMemo } from "react";
import { PlotlyChart } from "./PlotlyChart";
import { metricLabel } from "./format";
import type { Point } from "./runStream";

interface Props {
  name: string;
  points: Point[];
  /** The same metric measured by evaluation (greedy attention, held-out episodes), drawn as markers. */
  evalPoints?: Point[];
}

/** One metric against episodes; redrawn only when its own points change. */
export function MetricChart({ name, points, evalPoints }: Props) {
  const data = useMemo(() => {
    const traces: Record<string, unknown>[] = [
      {
        type: "scatter",
        mode: points.length > 60 ? "lines" : "lines+markers",
        name: "training",
        x: points.map((p) => p[0]),
        y: points.map((p) => p[1]),
        line: { color: "#3b5bdb", width: 2 },
        marker: { size: 4 },
      },
    ];
    if (evalPoints?.length)
      traces.push({
        type: "scatter",
        mode: "markers",
        name: "evaluation",
        x: evalPoints.map((p) => p[0]),
        y: evalPoints.map((p) => p[1]),
        marker: { color: "#e67700", size: 8, symbol: "diamond" },
      });
    return traces;
  }, [points, evalPoints]);
  const hasEval = Boolean(evalPoints?.length);
  const layout = useMemo(
    () => ({
      title: { text: metricLabel(name), font: { size: 13 }, x: 0.02, y: 0.97 },
      margin: { l: 48, r: 12, t: 30, b: hasEval ? 64 : 40 },
      xaxis: { title: { text: "episode", standoff: 4 }, zeroline: false },
      yaxis: { zeroline: false },
      showlegend: hasEval,
      // Under the plot, where plotly's toolbar (top right) never covers it.
      legend: { orientation: "h", x: 0, xanchor: "left", y: -0.2, yanchor: "top", font: { size: 11 } },
    }),
    [name, hasEval],
  );
  return <PlotlyChart data={data} layout={layout} height={320} testId={`curve-${name}`} label={`${metricLabel(name)} per episode`} />;
}
