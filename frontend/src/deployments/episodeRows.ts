/** What the review list says about a ticket (an `EpisodeRow`), and the list's query. */
import { words, spoken } from "../feedback/words";
import { outsideIntents } from "./consoleLabels";
import { customerWords } from "./conversation";
import { type Filters, filterQuery } from "./ReviewFilters";
import type { DecisionRow, EpisodeRow } from "./types";

/** How the deciding decisions were made, in words. */
export const DECIDED_SOURCE_LABEL: Record<string, string> = {
  model: "model",
  fallback: "rule fallback",
  half_open: "half-open trial",
};

/** "Logistics: track order → Quality supervisor: approve": the deciding decisions in step order. */
export function decidedBy(row: Pick<EpisodeRow, "decided_by">): string {
  if (row.decided_by.length === 0) return "nobody decided";
  return row.decided_by.map((d) => `${spoken(d.agent)}: ${words(d.action)}`).join(" → ");
}

/** What the customer wrote; a conversation turn without words (the customer's "That solved it" or "It did
 * not") says which, in the conversation view's words (`customerWords`). */
export function ticketWords(row: Pick<EpisodeRow, "task_text" | "event">): { text: string; spoken: boolean } {
  if (row.task_text || !row.event) return { text: row.task_text, spoken: true };
  return customerWords({ customer: row.task_text, event: row.event });
}

/** A ticket turned away as outside what the team can do (status `out_of_scope`, nothing played), in the
 * ticket console's words: the badge beside the ticket and its answer; null for a ticket the team played. */
export function outOfScopeWords(row: Pick<EpisodeRow, "out_of_scope">): { badge: string; answer: string } | null {
  const scope = row.out_of_scope;
  if (!scope) return null;
  if (scope.handoff) return { badge: "out of scope — handed to a person", answer: outsideIntents(scope.nearest) };
  const nearest = scope.nearest ? ` (nearest: ${scope.nearest.replace(/_/g, " ")})` : "";
  return { badge: "out of scope — not played", answer: `none: outside what the team can do${nearest}` };
}

/** An agent's idle action (index 0 in every environment: pass, wait, continue): it held back this step. */
export function isIdle(decision: Pick<DecisionRow, "action_index">): boolean {
  return decision.action_index === 0;
}

/** The review filters as /api/episodes/ names them: the decision's `source` is the episode's
 * `decision_source` (an episode's own `source` is where the ticket came from). */
export function episodeQuery(filters: Filters): URLSearchParams {
  const query = filterQuery(filters);
  const source = query.get("source");
  if (source) {
    query.delete("source");
    query.set("decision_source", source);
  }
  return query;
}
