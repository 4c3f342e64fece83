import type { RunSummary } from "./types";

export interface TagGroup {
  /** "" for the runs without a tag. */
  tag: string;
  runs: RunSummary[];
}

/** Runs grouped under each of their tags (a run with two tags is in both groups), untagged ones last. */
export function groupByTag(runs: RunSummary[]): TagGroup[] {
  const groups = new Map<string, RunSummary[]>();
  for (const run of runs) {
    for (const tag of run.tags?.length ? run.tags : [""]) groups.set(tag, [...(groups.get(tag) ?? []), run]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === "" ? 1 : b === "" ? -1 : a.localeCompare(b)))
    .map(([tag, members]) => ({ tag, runs: members }));
}
