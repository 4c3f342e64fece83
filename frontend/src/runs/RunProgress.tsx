import { currentStage } from "./runStream";
import { doneOfTotal, percentDone, timeLeft } from "./stageWords";
import type { StageProgress } from "./types";

const MARKS: Record<StageProgress["state"], string> = { running: "▸", done: "✓", stopped: "■" };

interface Props {
  stages: StageProgress[];
  /** The run is queued or running: with no report yet, say that one is coming. */
  live: boolean;
}

/**
 * Where the run is: the stage it is in now (its bar, units done of the total and about how long is left)
 * and every stage so far in the order they began, from the run's "progress" events.
 */
export function RunProgress({ stages, live }: Props) {
  const now = currentStage(stages);
  return (
    <section className="card" data-testid="run-progress">
      <h2>Progress</h2>
      {!stages.length ? (
        <p className="muted">{live ? "Waiting for the run's first progress report…" : "This run reported no progress."}</p>
      ) : (
        <>
          {now && (
            <div className="stage-now" data-testid="current-stage">
              <div className="stage-head">
                <b>{now.label}</b>
                <span>{doneOfTotal(now)}</span>
                <span className="muted">{timeLeft(now)}</span>
              </div>
              <div
                className="run-meter-bar"
                role="progressbar"
                aria-label={now.label}
                aria-valuenow={now.done}
                aria-valuemin={0}
                aria-valuemax={now.total}
              >
                <div style={{ width: `${percentDone(now)}%` }} />
              </div>
            </div>
          )}
          <ol className="stage-list">
            {stages.map((stage) => (
              <li key={stage.phase} className={`stage-${stage.state}`}>
                <span aria-hidden>{MARKS[stage.state]}</span> {stage.label}
                {stage.runs > 1 ? ` (×${stage.runs})` : ""} · {doneOfTotal(stage)} · {timeLeft(stage)}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
