import type { Schema } from "../api";

/** The check that turned a request away, as `/api/episodes/` and a ticket's episode carry it (`out_of_scope`). */
export type ScopeVerdict = Schema<"OutOfScope">;

/** What the request console calls its request, per environment: a ticket for customer service, a request
 * for the writing workflows (the runtime matches it to a topic, brief or task of their data). */
export interface ConsoleLabels {
  title: string;
  field: string;
  placeholder: string;
  /** What the matched item is called ("topic"), or null when the team reads the text itself. */
  item: string | null;
}

const LABELS: Record<string, ConsoleLabels> = {
  research_report: {
    title: "Report request",
    field: "What should the report be about?",
    placeholder: "how fast are heat pumps being installed, and what slows them down?",
    item: "Topic",
  },
  collaborative_writing: {
    title: "Writing request",
    field: "What should the team write?",
    placeholder: "a short formal post on remote work: costs and common mistakes",
    item: "Brief",
  },
  code_generation: {
    title: "Coding request",
    field: "What should the code do?",
    placeholder: "a function that returns the arithmetic mean of a list",
    item: "Task",
  },
};

/** A ticket team's words; its placeholder is only the fallback of `ticketPlaceholder` (the team's catalogue may
 * be any, a library desk's as well as a shop's). */
const TICKET: ConsoleLabels = {
  title: "Customer ticket",
  field: "Customer message",
  placeholder: "Type a ticket for this team…",
  item: null,
};

export function consoleLabels(environment: string | null | undefined): ConsoleLabels {
  return (environment && LABELS[environment]) || TICKET;
}

/** The console's example request: for a ticket team, the example ticket of its own data (the catalogue
 * endpoint's ``example``), else a neutral invitation; a writing team keeps its own. */
export function ticketPlaceholder(labels: ConsoleLabels, example: string | null | undefined): string {
  return labels.item === null && example ? example : labels.placeholder;
}

/** A ticket the scope gate handed to a person, as the ticket console and the review list word its answer:
 * "none: outside the team's intents (nearest: complaint)". */
export function outsideIntents(nearest: string | null | undefined): string {
  return `none: outside the team's intents${nearest ? ` (nearest: ${nearest.replace(/_/g, " ")})` : ""}`;
}

/** Two decimals, or three where two would print a value the same as the bound it missed (0.949 vs 0.95). */
function beside(value: number, bound: number): string {
  return value.toFixed(2) === bound.toFixed(2) ? value.toFixed(3) : value.toFixed(2);
}

/** Why the scope gate turned a ticket away, in numbers: "turned away: nearest intent 'refund' at 0.41 (floor
 * 0.52); in-scope probability 0.12 (needs 0.95)" (the second half only for a gate with a "none of these"
 * class); a writing team's request names its nearest item. Null without the numbers (a ticket stored before
 * they were kept). */
export function scopeVerdictWords(verdict: ScopeVerdict | null | undefined): string | null {
  if (!verdict || verdict.score === null || verdict.floor === null) return null;
  const what = verdict.handoff ? "intent" : "item";
  const nearest = verdict.nearest ? `nearest ${what} '${verdict.nearest.replace(/_/g, " ")}'` : `nearest ${what}`;
  let words = `turned away: ${nearest} at ${beside(verdict.score, verdict.floor)} (floor ${verdict.floor.toFixed(2)})`;
  const { in_scope_probability: probability, threshold } = verdict;
  if (probability !== null && threshold !== null)
    words += `; in-scope probability ${beside(probability, threshold)} (needs ${threshold.toFixed(2)})`;
  return words;
}

/** Teams that are never sent a ticket: a conversation (one message a turn) or a stream of tasks. The server
 * refuses their tickets, so their page offers no batch of tickets and no intents proposed from unplaced ones. */
const NO_TICKETS = new Set(["interactive_support", "large_team"]);

export function takesTickets(environment: string | null | undefined): boolean {
  return !environment || !NO_TICKETS.has(environment);
}

/** "heat pumps (matched by meaning, similarity 0.62; next: ebikes)" for a result's ``request``; for one
 * under the similarity floor, "none: the nearest, …, scores 0.41, not above the floor 0.50". */
export function describeMatch(match: RequestMatch): string {
  const name = (id: string | undefined) => (id ?? "unknown").replace(/_/g, " ");
  // a routing team's scope gate names the nearest intent, not an item
  const item = match.item ?? match.nearest;
  if (match.in_scope === false)
    return `none: the nearest, ${name(item)}, scores ${match.score.toFixed(2)}, not above the floor ${(match.floor ?? 0).toFixed(2)}`;
  const how =
    match.by === "name" ? "named in the request" : `matched by ${match.by}, similarity ${match.score.toFixed(2)}`;
  return `${name(item)} (${how}${match.runner_up ? `; next: ${name(match.runner_up)}` : ""})`;
}

/** Which item of the team's data a typed request was matched to (serving.requests). */
export interface RequestMatch {
  item?: string;
  /** The scope gate's check of a ticket (serving.scope) names the nearest intent instead. */
  nearest?: string;
  score: number;
  runner_up?: string | null;
  by: "name" | "meaning" | "words" | "example" | "description";
  /** The similarity a request must beat: the best a request of another team's kind reaches. */
  floor?: number;
  /** False: the team cannot do the request, nothing was played (status ``out_of_scope``). */
  in_scope?: boolean;
}
