import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ErrorList } from "./ErrorList";
import { feedbackApi } from "./feedbackApi";
import { feedbackQueries, isTraining } from "./queries";
import type { RewardModel } from "./types";
const percent = (x: number | undefined) => (x === undefined ? "–" : `${Math.round(x * 100)} %`);

function Figures({ model }: { model: RewardModel }) {
  const m = model.metrics;
  return (
    <>
      {m.head === "pairwise" ? (
        <p data-testid="reward-model-figures">
          Held-out pairwise accuracy <strong>{percent(m.accuracy)}</strong> on <strong>{m.n_heldout ?? "–"} held-out pairs</strong>{" "}
          (chance 50 %) · trained on {m.n_train} pairs · {m.n_ties ?? 0} tied pairs skipped · {m.backbone}
        </p>
      ) : (
        <p data-testid="reward-model-figures">
          Held-out accuracy <strong>{percent(m.accuracy)}</strong> on <strong>{m.n_heldout ?? "–"} held-out items</strong> (majority
          baseline {percent(m.baseline_accuracy)}) · MAE {m.mae === undefined ? "–" : `${m.mae.toFixed(2)} stars`} · trained on{" "}
          {m.n_train} · {m.backbone}
        </p>
      )}
      {model.warning && (
        <p className="fb-warning" role="status" data-testid="reward-model-warning">
          ⚠ {model.warning}
        </p>
      )}
    </>
  );
}

/** Train a reward model on the queue's ratings or pairwise judgements (a Celery job) and follow it until it
 * reports its figures: the queue's newest model, re-read while it trains (feedbackQueries.rewardModel). */
export function RewardModelPanel({ queue }: { queue: number }) {
  const queryClient = useQueryClient();
  const models = feedbackQueries.rewardModels(queue);
  const list = useQuery(models);
  const newest = list.data?.[0];
  const polled = useQuery({ ...feedbackQueries.rewardModel(newest?.id ?? 0), enabled: newest !== undefined, initialData: () => newest });
  const model = polled.data ?? null;
  const active = model !== null && isTraining(model);
  const training = useMutation({
    mutationFn: () => feedbackApi.trainRewardModel(queue),
    onSuccess: (fresh) => queryClient.setQueryData(models.queryKey, (old) => [fresh, ...(old ?? [])]),
  });
  const error = training.error ?? polled.error ?? list.error;

  return (
    <div className="fb-reward-model" data-testid="reward-model">
      <div className="row">
        <button onClick={() => training.mutate()} disabled={active}>
          Train reward model
        </button>
        {model && (
          <span className={`run-state run-state-${model.state === "queued" ? "queued" : model.state}`} data-testid="reward-model-state">
            {model.state}
          </span>
        )}
      </div>
      {active && (
        <div className="meter">
          <span>{model.message || "waiting for a worker"}</span>
          <div className="meter-track">
            <div className="meter-fill" style={{ width: `${Math.round(model.progress * 100)}%` }} />
          </div>
          <span>{Math.round(model.progress * 100)}%</span>
        </div>
      )}
      {model?.state === "succeeded" && <Figures model={model} />}
      {model?.state === "failed" && <p className="error">{model.message}</p>}
      <ErrorList error={error} />
    </div>
  );
}
