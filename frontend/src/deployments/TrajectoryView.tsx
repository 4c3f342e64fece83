import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { AttentionHeatmap } from "../runs/AttentionHeatmap";
import { formatTime } from "../runs/format";
import type { AttentionFrame } from "../runs/types";
import { BreakerBadge } from "./BreakerBadge";
import { DecisionCard } from "./DecisionCard";
import { ticketWords } from "./episodeRows";
import { attentionMatrix, bySteps } from "./format";
import { deploymentQueries } from "./queries";

interface Props {
  episodeId: number;
  initialStep: number;
  onClose: () => void;
}

/** One episode step by step: every agent's decision, the messages they listened to, attention as a heat map.
 * It opens at `initialStep` (the parent gives another episode or step a fresh view, by `key`). */
export function TrajectoryView({ episodeId, initialStep, onClose }: Props) {
  const { data: episode, error } = useQuery(deploymentQueries.episode(episodeId));
  // The step shown, once the user has moved; before that, `initialStep`.
  const [moved, setMoved] = useState<number | null>(null);
  // It opens above the review list: the browser keeps the list where it was, so a user scrolled down to the
  // step saw nothing happen. Once the episode is shown, it is brought into view.
  const view = useRef<HTMLElement>(null);
  const shown = episode !== undefined;
  useEffect(() => {
    if (shown) view.current?.scrollIntoView({ block: "start" });
  }, [shown]);

  const steps = useMemo(() => (episode ? bySteps(episode.steps) : []), [episode]);
  const index = moved ?? Math.max(0, steps.findIndex(([step]) => step === initialStep));
  const setIndex = (next: (i: number) => number) => setMoved(next(index));
  const current = steps[index];
  const frame: AttentionFrame | null = useMemo(() => {
    if (!episode || !current) return null;
    const matrix = attentionMatrix(episode.agents, current[1]);
    if (matrix.every((row) => row.every((w) => w === 0))) return null; // the fallback sends no messages
    return { seq: current[0], step: current[0], episode: episode.id, mode: "inference", agents: episode.agents, matrix, graph: null };
  }, [episode, current]);

  if (error) return <p className="error">{error.message}</p>;
  if (!episode || !current) return <p className="muted">Loading episode {episodeId}…</p>;
  return (
    <section ref={view} className="card trajectory" aria-label="Trajectory" data-testid="trajectory">
      <div className="card-head">
        <h2>
          Episode {episode.id} · {episode.deployment_name}
        </h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <p>
        <TicketText said={ticketWords(episode)} />{" "}
        <span className="muted small">
          {episode.source} · {formatTime(episode.created_at)} · {episode.status} · answer{" "}
          {(episode.answer ?? []).join(", ") || "–"}
          {episode.reward !== null && ` · reward ${episode.reward.toFixed(2)}`}
        </span>
      </p>
      <div className="trajectory-reply" data-testid="trajectory-reply">
        <p className="muted small">Reply{episode.reply?.backend ? ` (${episode.reply.backend})` : ""}</p>
        {episode.reply?.text ? <p className="reply-text">{episode.reply.text}</p> : <p className="muted">No reply was written.</p>}
      </div>
      <div className="replay">
        <button type="button" onClick={() => setIndex((i) => i - 1)} disabled={index === 0}>
          ◀ Previous step
        </button>
        <span data-testid="trajectory-step">
          Step {current[0]} of {steps.length}
        </span>
        <button type="button" onClick={() => setIndex((i) => i + 1)} disabled={index >= steps.length - 1}>
          Next step ▶
        </button>
        <BreakerBadge state={current[1][0].breaker_state} />
      </div>
      <div className="attention-views">
        <ul className="decisions">
          {current[1].map((d) => (
            <DecisionCard key={d.id} decision={d} />
          ))}
        </ul>
        {frame ? <AttentionHeatmap frame={frame} /> : <p className="muted">No messages this step (the rule fallback answered).</p>}
      </div>
    </section>
  );
}

/** The ticket in quotes, or in italics what a turn without words came to ("the answer solved it"). */
function TicketText({ said }: { said: { text: string; spoken: boolean } }) {
  return said.spoken ? <>“{said.text}”</> : <i className="muted">{said.text}</i>;
}
