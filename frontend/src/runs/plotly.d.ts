// The few Plotly entry points the run pages use (plotly.js-dist-min ships no types of its own).
declare module "plotly.js-dist-min" {
  export type PlotTrace = Record<string, unknown>;
  export type PlotLayout = Record<string, unknown>;
  interface PlotlyStatic {
    react(root: HTMLElement, data: PlotTrace[], layout?: PlotLayout, config?: Record<string, unknown>): Promise<unknown>;
    purge(root: HTMLElement): void;
  }
  const Plotly: PlotlyStatic;
  export default Plotly;
}
