import type { CompareRun } from "./types";

const COLOURS = ["#3b5bdb", "#e8590c", "#2b8a3e", "#ae3ec9", "#c92a2a", "#0b7285", "#5f3dc4", "#868e96"];
const DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"];
const SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "hexagon"];

export interface RunStyle {
  colour: string;
  dash: string;
  symbol: string;
}

/** Each compared run's own colour, dash and marker, so runs with the same seed (whose curves may lie on
 * top of each other) still read apart. */
export function runStyle(index: number): RunStyle {
  return { colour: COLOURS[index % COLOURS.length], dash: DASHES[index % DASHES.length], symbol: SYMBOLS[index % SYMBOLS.length] };
}

/** The legend name of a run: its id and name, and its seed when another compared run shares it. */
export function runLabel(run: CompareRun, runs: CompareRun[]): string {
  const seed = run.summary?.seed;
  const shared = seed != null && runs.filter((r) => r.summary?.seed === seed).length > 1;
  return `#${run.id} ${run.name}${shared ? ` (seed ${seed})` : ""}`;
}

/** "Runs #1 and #2 share seed 0" sentences, one per seed that several compared runs use. */
export function sharedSeeds(runs: CompareRun[]): string[] {
  const bySeed = new Map<string, number[]>();
  for (const run of runs) {
    const seed = run.summary?.seed;
    if (seed != null) bySeed.set(String(seed), [...(bySeed.get(String(seed)) ?? []), run.id]);
  }
  return [...bySeed.entries()]
    .filter(([, ids]) => ids.length > 1)
    .map(([seed, ids]) => `Runs ${ids.map((id) => `#${id}`).join(" and ")} share seed ${seed}`);
}
