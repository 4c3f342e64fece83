/**
 * A large team's allocation summary (the "allocation" event, agents/envs/large_team/summary.py): each
 * agent's backlog over the last evaluation episode's tasks as heat-map cells, who won the tasks, and what
 * keeping the team's state in sync cost beside the central controller.
 */
import type { AllocationPayload } from "./events.generated";

export interface BacklogCell {
  row: number;
  col: number;
  agent: string;
  task: number;
  backlog: number;
  /** 0 (idle) … 1 (the busiest agent at any task shown). */
  shade: number;
}

export interface BacklogGrid {
  cells: BacklogCell[];
  rows: number;
  cols: number;
  max: number;
}

/** The heat map's cells, row = agent, column = task; shades relative to the largest backlog shown. */
export function backlogGrid(summary: AllocationPayload): BacklogGrid {
  const { agents, tasks, backlog } = summary;
  const values = backlog.flat().filter((v) => Number.isFinite(v));
  const max = Math.max(0, ...values);
  const cells: BacklogCell[] = [];
  backlog.forEach((row, r) =>
    row.forEach((value, c) => {
      const backlogValue = Number.isFinite(value) ? Math.max(0, value) : 0;
      cells.push({ row: r, col: c, agent: agents[r] ?? String(r), task: tasks[c] ?? c, backlog: backlogValue, shade: max > 0 ? backlogValue / max : 0 });
    }),
  );
  return { cells, rows: backlog.length, cols: Math.max(0, ...backlog.map((row) => row.length)), max };
}

/** A light-to-dark fill for a shade in 0…1 (idle agents light, the busiest dark). */
export function shadeColor(shade: number): string {
  const t = Math.min(1, Math.max(0, shade));
  const mix = (a: number, b: number) => Math.round(a + (b - a) * t);
  return `rgb(${mix(248, 180)}, ${mix(249, 40)}, ${mix(252, 40)})`;
}

export interface MessageCost {
  /** Messages of the run's own mode over what the controller would send for the same changes (null: no changes). */
  ratio: number | null;
  sentence: string;
}

/** How the state-sync messages compare with the central controller's, in one sentence. */
export function messageCost(summary: AllocationPayload): MessageCost {
  const { state_sync: mode, messages, central_messages: central, quota_hits: quota } = summary;
  const quotaText = quota > 0 ? ` The quota was reached ${quota} time${quota === 1 ? "" : "s"} (an agent gossiped with one peer only).` : "";
  if (central <= 0) return { ratio: null, sentence: `No state changes to share this episode.${quotaText}` };
  const ratio = messages / central;
  if (mode !== "gossip") return { ratio, sentence: `The central controller sent ${messages} messages.${quotaText}` };
  const percent = Math.round(ratio * 100);
  return {
    ratio,
    sentence: `Gossip sent ${messages} messages, ${percent}% of the ${central} a central controller would send for the same changes.${quotaText}`,
  };
}

export interface WinShare {
  agent: string;
  wins: number;
  share: number;
}

/** The agents that won the most tasks, most first (ties by name), with their share of allocated tasks. */
export function topWinners(summary: AllocationPayload, limit = 5): WinShare[] {
  const total = summary.wins.reduce((a, b) => a + b, 0);
  return summary.agents
    .map((agent, i) => ({ agent, wins: summary.wins[i] ?? 0, share: total > 0 ? (summary.wins[i] ?? 0) / total : 0 }))
    .filter((w) => w.wins > 0)
    .sort((a, b) => b.wins - a.wins || a.agent.localeCompare(b.agent))
    .slice(0, limit);
}

/** Whether a stored payload has what the panel reads (an older event may lack a field). */
export function isAllocation(payload: unknown): payload is AllocationPayload {
  const p = payload as Partial<AllocationPayload> | null;
  return (
    !!p &&
    Array.isArray(p.agents) &&
    Array.isArray(p.tasks) &&
    Array.isArray(p.wins) &&
    Array.isArray(p.backlog) &&
    p.backlog.every((row) => Array.isArray(row)) &&
    typeof p.messages === "number" &&
    typeof p.central_messages === "number" &&
    typeof p.quota_hits === "number" &&
    typeof p.state_sync === "string"
  );
}

export interface StormReport {
  /** One sentence: storms detected, who stormed, what the quota dropped (null: an event from before storms). */
  sentence: string | null;
  /** The agents of lowest reputation at the episode's end, lowest first (those below 0.9 only). */
  lowest: { agent: string; reputation: number }[];
}

/** Message storms of the episode (agents over the message quota) and the reputations they cost. */
export function stormReport(summary: AllocationPayload, limit = 3): StormReport {
  const reputations = summary.reputations ?? [];
  const lowest = summary.agents
    .map((agent, i) => ({ agent, reputation: reputations[i] ?? 1 }))
    .filter((r) => r.reputation < 0.9)
    .sort((a, b) => a.reputation - b.reputation || a.agent.localeCompare(b.agent))
    .slice(0, limit);
  if (summary.storms == null) return { sentence: null, lowest };
  if (summary.storms === 0) return { sentence: "No message storm: every agent kept within its message quota.", lowest };
  const who = (summary.stormers ?? []).join(", ");
  const storms = `${summary.storms} message storm${summary.storms === 1 ? "" : "s"} detected${who ? ` (${who})` : ""}`;
  const rounds = summary.storm_rounds ?? 0;
  const throttled = summary.throttled ?? 0;
  return {
    sentence: `${storms}: ${rounds} agent-round${rounds === 1 ? "" : "s"} over the quota, ${throttled} message${throttled === 1 ? "" : "s"} throttled.`,
    lowest,
  };
}
