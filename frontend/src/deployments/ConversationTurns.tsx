import { customerWords, decisionText, type Turn } from "./conversation";
import "./conversation.css";

/** A conversation turn by turn: what the customer said, the decisions the agents took, what the team said
 * back (and which agent's decision that reply says). Used by the console and the review page. */
export function ConversationTurns({ turns, reviewLinks = true }: { turns: Turn[]; reviewLinks?: boolean }) {
  return (
    <ol className="conversation-turns" data-testid="conversation-turns">
      {turns.map((t) => (
        <li key={t.episode} className="conversation-turn" data-testid="conversation-turn">
          <p className="said customer" data-testid="customer-said">
            <b>Customer:</b> {customerWords(t).spoken ? t.customer : <i className="muted">{customerWords(t).text}</i>}
          </p>
          {t.decisions.length > 0 && (
            <ul className="turn-decisions small muted" data-testid="turn-decisions">
              {t.decisions.map((d) => (
                <li key={d.id}>
                  step {d.step} · {decisionText(d)}
                  {d.fault && ` · fault: ${d.fault}`}
                </li>
              ))}
            </ul>
          )}
          <p className={`said team event-${t.event?.kind ?? "none"}`} data-testid="team-said" data-event={t.event?.kind ?? ""}>
            <b>Team ({t.speaker}):</b> {t.reply}
          </p>
          <p className="small muted">
            turn {t.turn}
            {reviewLinks && (
              <>
                {" "}· <a href={`/review/?episode=${t.episode}`}>review this turn</a>
              </>
            )}
          </p>
        </li>
      ))}
    </ol>
  );
}
