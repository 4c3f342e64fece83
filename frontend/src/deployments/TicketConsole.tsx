import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { deploymentsApi } from "./deploymentsApi";
import { apiErrorLines, bySteps, stepsText } from "./format";
import { deploymentQueries } from "./queries";
import { StepList } from "./StepList";
import { handedToPerson, type Reply } from "./reply";
import type { LiveReplies } from "./replyStream";
import { ReplyView } from "./ReplyView";
import { ScopeVerdict } from "./ScopeVerdict";
import { WriterPanel } from "./WriterPanel";
import { TicketHistory, useTicketHistory } from "./TicketHistory";
import type { Decision, EpisodeSummary, TicketResult } from "./types";
import { ErrorList } from "./ErrorList";
import { consoleLabels, describeMatch, outsideIntents, ticketPlaceholder, type ConsoleLabels } from "./consoleLabels";
import { CONVERSATIONAL } from "./conversation";
import { ConversationConsole } from "./ConversationConsole";

/** A new step is revealed this often, so a fast team can still be watched deciding step by step. */
const REVEAL_MS = 300;

interface Props {
  deploymentId: number;
  /** The team's environment: what the console calls its request ("Customer ticket", "Report request"). */
  environment?: string | null;
  username: string;
  /** Episodes and decisions streamed over the deployment's WebSocket. */
  liveEpisodes: EpisodeSummary[];
  liveDecisions: Record<string, Decision[]>;
  /** Each reply as the agents write it, chunk by chunk (shown until the whole reply arrives). */
  liveReplyParts?: LiveReplies;
  /** Whether the user may open /review/ (operators, admins): the answers link there only then. */
  canReview?: boolean;
}

/** The deployment's console: a conversation for a conversational team, else one ticket at a time. */
export function TicketConsole(props: Props) {
  if (CONVERSATIONAL.has(props.environment ?? "")) return <ConversationConsole deploymentId={props.deploymentId} canReview={props.canReview ?? true} />;
  return <TicketForm {...props} />;
}

/** Type a customer ticket (or a writing request), then watch the agents handle it step by step; the
 * answer re-reads the deployment (its breaker counts moved). */
function TicketForm({ deploymentId, environment, username, liveEpisodes, liveDecisions, liveReplyParts, canReview = true }: Props) {
  const queryClient = useQueryClient();
  const labels = consoleLabels(environment);
  // A ticket team's example comes from its own data (its catalogue may be a library desk's, not a shop's).
  const { data: catalogue } = useQuery({ ...deploymentQueries.catalogue(deploymentId), enabled: labels.item === null });
  const [text, setText] = useState("");
  const [revealed, setRevealed] = useState(0);
  const [history, remember] = useTicketHistory(deploymentId);
  const sending = useMutation({
    mutationFn: (ticket: string) => deploymentsApi.sendTicket(deploymentId, ticket),
    onSuccess: (answered) => {
      remember(answered.episode, answered.result);
      setText("");
      void queryClient.invalidateQueries({ queryKey: deploymentQueries.detail(deploymentId).queryKey, exact: true });
    },
  });
  // The ticket on its way or answered (a refused one is not shown), and the answer once it is in.
  const submitted = sending.isPending || sending.isSuccess ? (sending.variables ?? null) : null;
  const done = sending.data ?? null;

  // While the request runs, its decisions arrive over the WebSocket; the response then has all of them.
  const requestId =
    done?.result.request_id ??
    [...liveEpisodes]
      .reverse()
      .find((e) => e.task_text === submitted && e.created_by === username && e.source === "browser")?.request_id;
  const decisions = useMemo(
    () => done?.result.decisions ?? (requestId ? liveDecisions[requestId] ?? [] : []),
    [done, requestId, liveDecisions],
  );
  const stepCount = bySteps(decisions).length;
  useEffect(() => {
    if (revealed >= stepCount) return;
    const timer = window.setTimeout(() => setRevealed((n) => n + 1), REVEAL_MS);
    return () => window.clearTimeout(timer);
  }, [revealed, stepCount]);

  const send = () => {
    setRevealed(0);
    sending.mutate(text.trim());
  };

  const busy = sending.isPending;
  const shown = decisions.filter((d) => d.step <= revealed);
  const finished = done !== null && revealed >= stepCount;
  return (
    <section className="card" aria-label="Run a ticket">
      <h2>{labels.title}</h2>
      <form
        className="ticket-form"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <label className="field column">
          {labels.field}
          <textarea rows={3} value={text} onChange={(e) => setText(e.target.value)} placeholder={ticketPlaceholder(labels, catalogue?.example)} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "The team is working…" : "Send to the team"}
        </button>
      </form>
      <WriterPanel deploymentId={deploymentId} />
      <ErrorList lines={apiErrorLines(sending.error)} />
      {submitted !== null && (
        <div className="ticket-run">
          <p className="muted small">
            “{submitted}” — {busy ? "agents deciding…" : stepsText(stepCount)}
          </p>
          <StepList decisions={shown} />
          {!done && requestId && revealed >= stepCount && <ReplyView live={liveReplyParts?.[requestId]} />}
          {finished && done && <TicketAnswer episode={done.episode} result={done.result} labels={labels} canReview={canReview} />}
        </div>
      )}
      <TicketHistory entries={history} canReview={canReview} />
    </section>
  );
}

/** A ticket the scope gate handed to a person: none of the team's intents, and the nearest one. */
export function outsideWords(result: TicketResult): string {
  return outsideIntents(result.request?.nearest);
}

export function TicketAnswer({ episode, result, labels, canReview }: { episode: EpisodeSummary; result: TicketResult; labels: ConsoleLabels; canReview: boolean }) {
  const intents = result.info.predicted_intents ?? [];
  const handedOver = handedToPerson(result);
  const answeredBy = result.sources.fallback > 0 ? "fallback" : "model";
  return (
    <div className="ticket-answer" data-testid="ticket-answer">
      <p>
        {result.request && labels.item ? (
          <span data-testid="request-match">
            <b>{labels.item ?? "Item"}:</b> {describeMatch(result.request)}
          </span>
        ) : (
          <>
            <b>Answer:</b>{" "}
            {handedOver ? outsideWords(result) : intents.length ? intents.join(", ").replace(/_/g, " ") : "no intent answered"}
          </>
        )}{" "}
        <span className={`source-badge source-${answeredBy}`} data-testid="answered-by">
          {handedOver ? "handed to a person" : `answered by ${answeredBy}`}
        </span>
      </p>
      {handedOver && <ScopeVerdict verdict={episode.out_of_scope} block />}
      <p className="small muted">
        {handedOver ? "out of scope, not played" : `${result.status} in ${stepsText(result.steps)}`}, {result.latency_ms.toFixed(0)} ms · model {result.sources.model + result.sources.trial},
        fallback {stepsText(result.sources.fallback)}
        {result.faults.length > 0 && ` · faults: ${result.faults.map((f) => f.kind).join(", ")}`}
        {canReview && (
          <>
            {" "}· <a href={`/review/?episode=${episode.id}`}>review this episode</a>
          </>
        )}
      </p>
      <ReplyView reply={(result as TicketResult & { reply?: Reply }).reply} />
    </div>
  );
}
