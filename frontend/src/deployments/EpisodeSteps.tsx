import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { DecisionTable } from "./DecisionTable";
import { isIdle } from "./episodeRows";
import { deploymentQueries } from "./queries";
import type { DecisionRow } from "./types";

interface Props {
  episodeId: number;
  /** Open the trajectory (every agent, attention heat map) at a decision's step. */
  onOpen: (row: DecisionRow) => void;
  onReviewed: (row: DecisionRow) => void;
}

/** An expanded ticket's steps, fetched when it is opened: the decisions that did something first, the
 * agents that held back (pass, wait) behind a toggle. */
export function EpisodeSteps({ episodeId, onOpen, onReviewed }: Props) {
  const { data: episode, error } = useQuery(deploymentQueries.episode(episodeId));
  const [showIdle, setShowIdle] = useState(false);
  if (error) return <p className="error">{error.message}</p>;
  if (!episode) return <p className="muted">Loading the steps of episode {episodeId}…</p>;
  const acting = episode.steps.filter((s) => !isIdle(s));
  const idle = episode.steps.length - acting.length;
  return (
    <div className="episode-steps" data-testid={`episode-steps-${episodeId}`}>
      <DecisionTable rows={showIdle ? episode.steps : acting} onOpen={onOpen} onReviewed={onReviewed} deployment={episode.deployment} />
      {idle > 0 && (
        <button type="button" className="link" onClick={() => setShowIdle((v) => !v)}>
          {showIdle ? "Hide" : "Show"} {idle} step{idle === 1 ? "" : "s"} where an agent held back
        </button>
      )}
    </div>
  );
}
