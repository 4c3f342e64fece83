import { Fragment } from "react";
import { spoken, words } from "../feedback/words";
import { formatTime } from "../runs/format";
import { BreakerBadge } from "./BreakerBadge";
import { DECIDED_SOURCE_LABEL, decidedBy, outOfScopeWords, ticketWords } from "./episodeRows";
import { EpisodeSteps } from "./EpisodeSteps";
import { ScopeVerdict } from "./ScopeVerdict";
import { decisionsLabel, percent } from "./format";
import { EpisodeReviewControl } from "./ReviewControl";
import type { DecisionRow, EpisodeRow } from "./types";

interface Props {
  rows: EpisodeRow[];
  /** The ticket whose steps are shown under its row (null: none). */
  expanded: number | null;
  onExpand: (episode: number | null) => void;
  onReviewed: (row: EpisodeRow) => void;
  onOpenStep: (row: DecisionRow) => void;
  onStepReviewed: (row: DecisionRow) => void;
}

const COLUMNS = 7;

/** One line per ticket: what the customer wrote, what the team replied, who decided and how sure, the
 * breaker, the review; a click shows the ticket's steps. */
export function EpisodeTable({ rows, expanded, onExpand, onReviewed, onOpenStep, onStepReviewed }: Props) {
  if (rows.length === 0) return <p className="muted">No tickets match.</p>;
  return (
    <table className="run-table episode-table" data-testid="episodes">
      <thead>
        <tr>
          <th>Ticket</th>
          <th>Reply</th>
          <th>Decided by</th>
          <th>Confidence</th>
          <th>Breaker</th>
          <th>Review</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const open = expanded === row.id;
          const toggle = () => onExpand(open ? null : row.id);
          const said = ticketWords(row);
          const outside = outOfScopeWords(row);
          return (
            <Fragment key={row.id}>
              <tr className={open ? "episode-row open" : "episode-row"} data-testid={`episode-${row.id}`} onClick={toggle}>
                <td className="episode-ticket">
                  <span className={said.spoken ? "clamp" : "clamp muted"} data-testid="episode-ticket-text">
                    {said.spoken ? said.text : <i>{said.text}</i>}
                  </span>
                  {outside && (
                    <span className="small" data-testid="episode-out-of-scope">
                      <span className="source-badge source-fallback">{outside.badge}</span> <b>Answer:</b> {outside.answer}
                    </span>
                  )}
                  <ScopeVerdict verdict={row.out_of_scope} />
                  <span className="small muted">
                    #{row.id} · {row.deployment_name} · {formatTime(row.created_at)}
                  </span>
                </td>
                <td className="episode-reply" data-testid="episode-reply">
                  {row.reply?.text ? <span className="clamp">{row.reply.text}</span> : <span className="muted">no reply written</span>}
                </td>
                <td data-testid="episode-decided-by">
                  {row.decided_by.length === 0 ? (
                    <span className="muted">nobody decided</span>
                  ) : (
                    <ul className="deciders" aria-label={decidedBy(row)}>
                      {row.decided_by.map((d) => (
                        <li key={d.id}>
                          <b>{spoken(d.agent)}</b> {words(d.action)}
                        </li>
                      ))}
                    </ul>
                  )}
                  {row.decided_source && (
                    <span className={`source-badge source-${row.decided_source === "half_open" ? "trial" : row.decided_source}`}>
                      {DECIDED_SOURCE_LABEL[row.decided_source] ?? row.decided_source}
                    </span>
                  )}
                </td>
                <td title="the least sure of the deciding decisions">{percent(row.confidence)}</td>
                <td>
                  <BreakerBadge state={row.breaker_state} />
                </td>
                <td onClick={(e) => e.stopPropagation()}>
                  <EpisodeReviewControl row={row} onChanged={onReviewed} />
                </td>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-expanded={open}
                    onClick={(e) => {
                      e.stopPropagation();
                      toggle();
                    }}
                  >
                    {open ? "Hide steps" : decisionsLabel(row.decision_count, row.step_count)}
                  </button>
                </td>
              </tr>
              {open && (
                <tr className="episode-expanded">
                  <td colSpan={COLUMNS}>
                    <EpisodeSteps episodeId={row.id} onOpen={onOpenStep} onReviewed={onStepReviewed} />
                  </td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}
