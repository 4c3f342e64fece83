/**
 * The deployment page's view of a large team at work: the last tasks' allocations (one column per task, as the
 * "allocation" events arrive) turned into heat-map cells — each agent's backlog after each task, who won it —
 * and the roster's groups with who is online.
 */
import type { AllocationEvent, Roster } from "./teamTypes";

/** Tasks the heat map keeps (the newest). */
export const WINDOW = 60;

export interface LoadColumn {
  key: string;
  task: number;
  kind: string;
  bidders: number;
  /** Each bidder's bid level (agents who passed are absent). */
  bids: Record<string, number>;
  winner: string | null;
  backlog: number[];
  online: boolean[];
}

/** The columns with one more task's allocation, the oldest dropped past ``window``. */
export function addAllocation(
  columns: LoadColumn[],
  event: AllocationEvent,
  window = WINDOW,
): LoadColumn[] {
  const column: LoadColumn = {
    key: `${event.request_id}-${event.step}`,
    task: event.allocation.task,
    kind: event.allocation.kind,
    bidders: Object.keys(event.allocation.bids).length,
    bids: event.allocation.bids,
    winner: event.allocation.winner,
    backlog: event.load.backlog,
    online: event.load.online,
  };
  return [...columns, column].slice(-window);
}

export interface LoadCell {
  row: number;
  col: number;
  agent: string;
  backlog: number;
  /** 0 (idle) … 1 (the largest backlog shown). */
  shade: number;
  won: boolean;
  online: boolean;
  /** The agent's bid for the column's task (null: it did not bid). */
  bid: number | null;
}

/** Row = agent (roster order), column = task; shades relative to the largest backlog shown. */
export function loadCells(
  columns: LoadColumn[],
  agents: string[],
): { cells: LoadCell[]; max: number } {
  const max = Math.max(
    0,
    ...columns.flatMap((c) => c.backlog.filter((v) => Number.isFinite(v))),
  );
  const cells: LoadCell[] = [];
  columns.forEach((column, col) =>
    agents.forEach((agent, row) => {
      const backlog = Math.max(0, column.backlog[row] ?? 0);
      cells.push({
        row,
        col,
        agent,
        backlog,
        shade: max > 0 ? backlog / max : 0,
        won: column.winner === agent,
        online: column.online[row] ?? true,
        bid: column.bids[agent] ?? null,
      });
    }),
  );
  return { cells, max };
}

/** Every member in roster order (the order of the environment's agents, hence of each backlog). */
export function members(roster: Roster | undefined): string[] {
  return roster ? roster.groups.flatMap((g) => g.members) : [];
}

/** Tasks each agent won among the columns shown, most first (ties by name). */
export function winsShown(
  columns: LoadColumn[],
  limit = 5,
): { agent: string; wins: number }[] {
  const wins = new Map<string, number>();
  for (const c of columns)
    if (c.winner) wins.set(c.winner, (wins.get(c.winner) ?? 0) + 1);
  return [...wins.entries()]
    .map(([agent, n]) => ({ agent, wins: n }))
    .sort((a, b) => b.wins - a.wins || a.agent.localeCompare(b.agent))
    .slice(0, limit);
}

/** The newest allocation in words: "Task 41 (shipping): 3 bids, won by couriers_1." */
export function lastAllocationText(columns: LoadColumn[]): string | null {
  const c = columns[columns.length - 1];
  if (!c) return null;
  const bids = c.bidders === 1 ? "1 bid" : `${c.bidders} bids`;
  return `Task ${c.task} (${c.kind}): ${bids}, ${c.winner ? `won by ${c.winner}` : "nobody took it"}.`;
}
