import { useEffect, useMemo, useState } from "react";
import { AttentionHeatmap } from "../runs/AttentionHeatmap";
import { formatTime } from "../runs/format";
import type { AttentionFrame } from "../runs/types";
import { BreakerBadge } from "./BreakerBadge";
import { DecisionCard } from "./DecisionCard";
import { deploymentsApi } from "./deploymentsApi";
import { attentionMatrix, bySteps } from "./format";
import type { EpisodeDetail } from "./types";

interface Props {
  episodeId: number;
  initialStep: number;
  onClose: () => void;
}

/** One episode step by step: every agent's decision, the messages they listened to, attention as a heat map. */
export function TrajectoryView({ episodeId, initialStep, onClose }: Props) {
  const [episode, setEpisode] = useState<EpisodeDetail | null>(null);
  const [error, setError] = useState("");
  const [index, setIndex] = useState(0);

  useEffect(() => {
    deploymentsApi.episode(episodeId).then(
      (detail) => {
        setEpisode(detail);
        const steps = bySteps(detail.steps).map(([step]) => step);
        setIndex(Math.max(0, steps.indexOf(initialStep)));
      },
      (e: Error) => setError(e.message),
    );
  }, [episodeId, initialStep]);

  const steps = useMemo(() => (episode ? bySteps(episode.steps) : []), [episode]);
  const current = steps[index];
  const frame: AttentionFrame | null = useMemo(() => {
    if (!episode || !current) return null;
    const matrix = attentionMatrix(episode.agents, current[1]);
    if (matrix.every((row) => row.every((w) => w === 0))) return null; // the fallback sends no messages
    return { seq: current[0], step: current[0], episode: episode.id, mode: "inference", agents: episode.agents, matrix, graph: null };
  }, [episode, current]);

  if (error) return <p className="error">{error}</p>;
  if (!episode || !current) return <p className="muted">Loading episode {episodeId}…</p>;
  return (
    <section className="card trajectory" aria-label="Trajectory" data-testid="trajectory">
      <div className="card-head">
        <h2>
          Episode {episode.id} · {episode.deployment_name}
        </h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <p>
        “{episode.task_text}”{" "}
        <span className="muted small">
          {episode.source} · {formatTime(episode.created_at)} · {episode.status} · answer{" "}
          {(episode.answer ?? []).join(", ") || "–"}
          {episode.reward !== null && ` · reward ${episode.reward.toFixed(2)}`}
        </span>
      </p>
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
