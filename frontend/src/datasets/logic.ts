/** Pure helpers of the datasets pages: the rows query, an upload's problems by line, the chart's bars. */
import { ApiError } from "../api";
import type { IntentCount, RowError, RowFilters, SplitCounts, UploadRefused } from "./types";

export const ROWS_PAGE_SIZE = 50;

/** The query string of a version's rows for these filters (empty filters left out). */
export function rowQuery(filters: RowFilters, pageSize: number = ROWS_PAGE_SIZE): string {
  const query = new URLSearchParams();
  const search = filters.search.trim();
  const intent = filters.intent.trim();
  if (filters.split) query.set("split", filters.split);
  if (intent) query.set("intent", intent);
  if (filters.provenance) query.set("provenance", filters.provenance);
  if (filters.unlabelled) query.set("unlabelled", filters.unlabelled);
  if (search) query.set("search", search);
  query.set("page", String(filters.page));
  query.set("page_size", String(pageSize));
  return query.toString();
}

export interface LineProblems {
  line: number;
  problems: { field: string; message: string }[];
}

/** Problems of the rows of an upload, one entry per line in file order. */
/** An upload's outcome in words: the file's rows kept and refused, and what the new version holds (an
 * appended file's rows join the latest version's, so the two counts differ). */
export function storedText(accepted: number, refused: number, version?: { number: number; row_count: number }): string {
  const rows = (n: number) => `${n.toLocaleString()} ${n === 1 ? "row" : "rows"}`;
  const kept = `${rows(accepted)} from the file stored${refused > 0 ? `, ${refused.toLocaleString()} refused` : ""}`;
  return version ? `${kept}: version v${version.number} holds ${rows(version.row_count)}.` : `${kept}.`;
}

export function problemsByLine(errors: RowError[]): LineProblems[] {
  const byLine = new Map<number, LineProblems>();
  for (const error of errors) {
    const entry = byLine.get(error.line) ?? { line: error.line, problems: [] };
    entry.problems.push({ field: error.field, message: error.message });
    byLine.set(error.line, entry);
  }
  return [...byLine.values()].sort((a, b) => a.line - b.line);
}

/** What a refused upload (400) says: its rows' problems (`row_errors`) and the messages about anything else
 * (the file as a whole, the options), as lines. */
export function refusedUpload(error: unknown): { rows: RowError[]; total: number; refused: number; other: string[] } {
  if (!(error instanceof ApiError)) return { rows: [], total: 0, refused: 0, other: error instanceof Error ? [error.message] : [] };
  const body = error.body as Partial<UploadRefused>;
  const rows = body.row_errors ?? [];
  const other = Object.entries(body.errors ?? {})
    .filter(([path]) => !path.startsWith("line "))
    .map(([path, messages]) => `${path}: ${messages.join("; ")}`);
  if (rows.length === 0 && other.length === 0) other.push(body.detail ?? error.message);
  if (rows.length > 0) other.unshift(body.detail ?? "no row of the file could be used");
  // Only the first 500 problems are listed: the totals say how many there were.
  return { rows, total: body.errors_total ?? rows.length, refused: body.refused ?? new Set(rows.map((r) => r.line)).size, other };
}

export interface Bar {
  name: string;
  count: number;
  /** Per split, the share of the widest bar (0–100), so the three segments of a bar add up to its length. */
  segments: { split: keyof SplitCounts; count: number; percent: number }[];
}

/** The label chart's bars: one per intent, then rows marked out of scope and unlabelled rows (each when
 * any; an out-of-scope row has no intent but is labelled: "none of these"), scaled to the largest count. */
export function labelBars(
  intents: IntentCount[],
  unlabelled: SplitCounts & { count: number },
  outOfScope?: SplitCounts & { count: number },
): Bar[] {
  const rows = [...intents];
  if (outOfScope && outOfScope.count > 0) rows.push({ name: "(out of scope)", ...outOfScope });
  if (unlabelled.count > 0) rows.push({ name: "(unlabelled)", ...unlabelled });
  const largest = Math.max(1, ...rows.map((r) => r.count));
  return rows.map((row) => ({
    name: row.name,
    count: row.count,
    segments: (["train", "dev", "test"] as const).map((split) => ({
      split,
      count: row[split],
      percent: (100 * row[split]) / largest,
    })),
  }));
}

/** A split's share of the rows as a whole percentage ("80 %"), "–" for an empty version. */
export function splitShare(counts: SplitCounts, split: keyof SplitCounts): string {
  const total = counts.train + counts.dev + counts.test;
  return total === 0 ? "–" : `${Math.round((100 * counts[split]) / total)} %`;
}

export interface CatalogueIntent {
  name: string;
  description: string;
}

/** An intent catalogue typed one intent a line, "name: what it means" (the description optional); blank
 * lines skipped. Null when no intent is given (the dataset then accepts any intent). */
export function parseCatalogue(text: string): { intents: CatalogueIntent[] } | null {
  const intents = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const colon = line.indexOf(":");
      return colon < 0
        ? { name: line, description: "" }
        : { name: line.slice(0, colon).trim(), description: line.slice(colon + 1).trim() };
    });
  return intents.length > 0 ? { intents } : null;
}
