import type PlotlyModule from "plotly.js-dist-min";

export type Plotly = typeof PlotlyModule;

let loading: Promise<Plotly> | null = null;

/** Plotly, loaded on first use as its own chunk so pages without charts never download it. */
export function loadPlotly(): Promise<Plotly> {
  loading ??= import("plotly.js-dist-min").then((module) => module.default);
  return loading;
}
