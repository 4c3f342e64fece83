import { useCallback, useEffect, useState } from "react";
import { formatTime } from "../runs/format";
import { handedToPerson } from "./reply";
import type { EpisodeSummary, TicketResult } from "./types";

const LIMIT = 50;

export interface SentTicket {
  episode: number;
  text: string;
  intents: string[];
  answeredBy: "model" | "fallback" | "person";
  steps: number;
  at: string;
}

const storageKey = (deploymentId: number) => `mase.tickets.${deploymentId}`;

function load(deploymentId: number): SentTicket[] {
  try {
    const raw = JSON.parse(window.sessionStorage.getItem(storageKey(deploymentId)) ?? "[]");
    return Array.isArray(raw) ? (raw as SentTicket[]).slice(0, LIMIT) : [];
  } catch {
    return [];
  }
}

/** The tickets sent from this page, newest first; kept for the browser tab's session (a reload keeps them). */
export function useTicketHistory(deploymentId: number): [SentTicket[], (episode: EpisodeSummary, result: TicketResult) => void] {
  const [entries, setEntries] = useState<SentTicket[]>(() => load(deploymentId));
  useEffect(() => setEntries(load(deploymentId)), [deploymentId]);
  const add = useCallback(
    (episode: EpisodeSummary, result: TicketResult) => {
      const entry: SentTicket = {
        episode: episode.id,
        text: episode.task_text,
        intents: result.info.predicted_intents ?? [],
        answeredBy: handedToPerson(result) ? "person" : result.sources.fallback > 0 ? "fallback" : "model",
        steps: result.steps,
        at: episode.created_at,
      };
      setEntries((old) => {
        const next = [entry, ...old.filter((e) => e.episode !== entry.episode)].slice(0, LIMIT);
        try {
          window.sessionStorage.setItem(storageKey(deploymentId), JSON.stringify(next));
        } catch {
          // storage full or disabled: the list still lives for this page
        }
        return next;
      });
    },
    [deploymentId],
  );
  return [entries, add];
}

/** The list of tickets sent from this page: what was asked, what the team answered, and by whom (a link to
 * each one's review only for those who may review: a product manager would get a 403 page). */
export function TicketHistory({ entries, canReview = true }: { entries: SentTicket[]; canReview?: boolean }) {
  if (entries.length === 0) return null;
  return (
    <details className="ticket-history-box" open data-testid="ticket-history">
      <summary>
        Sent from this page <span className="badge">{entries.length}</span>
      </summary>
      <ul className="ticket-history">
        {entries.map((e) => (
          <li key={e.episode}>
            <span className="ticket-text" title={e.text}>
              “{e.text}”
            </span>
            <span>{e.intents.length ? e.intents.join(", ").replace(/_/g, " ") : "no intent"}</span>
            <span className={`source-badge source-${e.answeredBy}`}>{e.answeredBy}</span>
            <span className="muted small">{formatTime(e.at)}</span>
            {canReview && <a href={`/review/?episode=${e.episode}`}>review</a>}
          </li>
        ))}
      </ul>
    </details>
  );
}
