import { AgreementPanel } from "./AgreementPanel";
import { EnqueueDatasetForm } from "./EnqueueDatasetForm";
import { EnqueueDeploymentForm } from "./EnqueueDeploymentForm";
import { feedbackApi } from "./feedbackApi";
import { RewardModelPanel } from "./RewardModelPanel";
import type { Queue } from "./types";

function Progress({ queue }: { queue: Queue }) {
  const p = queue.progress ?? { items: 0, assignments: 0, done: 0 };
  const share = p.assignments ? p.done / p.assignments : 0;
  return (
    <div className="meter" data-testid="queue-progress">
      <span>
        {p.done} of {p.assignments} answers
      </span>
      <div className="meter-track">
        <div className="meter-fill" style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
      <span>{Math.round(share * 100)}%</span>
    </div>
  );
}

/** One queue for its managers: progress, queueing from a deployment, agreement, reward model, export. */
export function QueueCard({ queue }: { queue: Queue }) {
  return (
    <section className="card" aria-label={`Queue ${queue.name}`} data-testid="queue-card">
      <div className="card-head">
        <h2>
          {queue.name} <span className="badge">{queue.kind}</span>
        </h2>
        <a className="button secondary" href={feedbackApi.exportUrl(queue.id)} download>
          Export JSONL
        </a>
      </div>
      <p className="hint">
        {queue.progress?.items ?? 0} items · {queue.overlap} annotator{queue.overlap > 1 ? "s" : ""} per item
        {queue.tags.length > 0 && <> · tags: {queue.tags.join(", ")}</>}
      </p>
      <Progress queue={queue} />
      {queue.kind === "intents" ? <EnqueueDatasetForm queue={queue} /> : <EnqueueDeploymentForm queue={queue} />}
      <AgreementPanel queue={queue.id} />
      {queue.kind !== "intents" && <RewardModelPanel queue={queue.id} />}
    </section>
  );
}
