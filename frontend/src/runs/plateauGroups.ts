import type { PlateauWarning } from "./types";

export interface PlateauGroup {
  recommendation: string;
  count: number;
  firstEpisode: number | null;
  lastEpisode: number | null;
  maxCycles: number | null;
}

/** Plateau warnings grouped by what they recommend, the most frequent first (a long run repeats a few). */
export function groupPlateaus(plateaus: PlateauWarning[]): PlateauGroup[] {
  const groups = new Map<string, PlateauGroup>();
  for (const p of plateaus) {
    const key = p.recommendation || "no recommendation";
    const g = groups.get(key) ?? { recommendation: key, count: 0, firstEpisode: null, lastEpisode: null, maxCycles: null };
    g.count += 1;
    if (p.episode !== null) {
      g.firstEpisode = g.firstEpisode === null ? p.episode : Math.min(g.firstEpisode, p.episode);
      g.lastEpisode = g.lastEpisode === null ? p.episode : Math.max(g.lastEpisode, p.episode);
    }
    if (p.cycles !== null) g.maxCycles = Math.max(g.maxCycles ?? 0, p.cycles);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.recommendation.localeCompare(b.recommendation));
}
