import { useEffect, useRef, useState } from "react";
import type { PlotLayout, PlotTrace } from "plotly.js-dist-min";
import { loadPlotly } from "./loadPlotly";

interface Props {
  data: PlotTrace[];
  layout?: PlotLayout;
  height?: number;
  testId?: string;
  /** Accessible name of the figure. */
  label: string;
}

const baseLayout: PlotLayout = {
  margin: { l: 48, r: 16, t: 16, b: 40 },
  paper_bgcolor: "rgba(0,0,0,0)",
  plot_bgcolor: "rgba(0,0,0,0)",
  font: { family: "system-ui, sans-serif", size: 12 },
  // Keep the user's zoom and legend choices while live updates redraw the figure.
  uirevision: "keep",
};

const config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"] };

function pointCount(data: PlotTrace[]): number {
  return data.reduce((total, trace) => {
    const z = trace.z;
    if (Array.isArray(z)) return total + z.reduce((n: number, row) => n + (Array.isArray(row) ? row.length : 1), 0);
    return total + (Array.isArray(trace.x) ? trace.x.length : 0);
  }, 0);
}

/**
 * A Plotly figure redrawn in place (Plotly.react) whenever `data` or `layout` change.
 * After each draw the container's `data-rendered-points` says how many values the figure shows.
 */
export function PlotlyChart({ data, layout, height = 300, testId, label }: Props) {
  const root = useRef<HTMLDivElement>(null);
  const [error, setError] = useState("");

  useEffect(() => {
    const element = root.current;
    return () => {
      if (element) loadPlotly().then((plotly) => plotly.purge(element), () => undefined);
    };
  }, []);

  useEffect(() => {
    let current = true;
    loadPlotly()
      .then(async (plotly) => {
        const element = root.current;
        if (!current || !element) return;
        await plotly.react(element, data, { ...baseLayout, height, ...layout }, config);
        element.dataset.renderedPoints = String(pointCount(data));
      })
      .catch((e: Error) => current && setError(`could not draw the chart: ${e.message}`));
    return () => {
      current = false;
    };
  }, [data, layout, height]);

  return (
    <figure className="plot" aria-label={label}>
      <div ref={root} data-testid={testId} style={{ minHeight: height }} />
      {error && <p className="error">{error}</p>}
    </figure>
  );
}
