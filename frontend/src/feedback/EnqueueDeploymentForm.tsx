import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { deploymentQueries } from "../deployments/queries";
import { ErrorList } from "./ErrorList";
import { feedbackApi } from "./feedbackApi";
import { feedbackQueries } from "./queries";
import type { DeploymentFilter, Queue } from "./types";

/** Queue a deployment's finished episodes (or steps): all, low-confidence ones, or fallback-answered ones;
 * the queues and this queue's agreement are re-read once they are queued. */
export function EnqueueDeploymentForm({ queue }: { queue: Queue }) {
  const queryClient = useQueryClient();
  const { data: deployments = [] } = useQuery({
    ...deploymentQueries.list(),
    select: (body) => body.results.filter((d) => d.project === queue.project),
  });
  // The first of the project's deployments until another is chosen.
  const [picked, setPicked] = useState<number | null>(null);
  const deployment = picked ?? deployments[0]?.id ?? 0;
  const [unit, setUnit] = useState<"episode" | "step">("episode");
  const [maxConfidence, setMaxConfidence] = useState("");
  const [fallbackOnly, setFallbackOnly] = useState(false);
  const [limit, setLimit] = useState(50);
  const [compareWith, setCompareWith] = useState(0);
  const [result, setResult] = useState("");
  const enqueue = useMutation({
    mutationFn: (filter: DeploymentFilter) => feedbackApi.enqueueDeployment(queue.id, filter),
    onSuccess: (body) => {
      const same = body.skipped_identical ?? 0;
      // A pair whose two replies are the same text leaves the annotator nothing to choose: not made.
      const skipped = same > 0 ? `; ${same} not paired (the other team replied with the same text)` : "";
      setResult(`${body.added} item${body.added === 1 ? "" : "s"} queued${skipped}`);
      for (const changed of [feedbackQueries.queues(), feedbackQueries.agreement(queue.id)])
        void queryClient.invalidateQueries({ queryKey: changed.queryKey, exact: true });
    },
  });

  if (deployments.length === 0) return <p className="hint">No deployments in this project to queue episodes from.</p>;
  const submit = () =>
    enqueue.mutate({
      deployment,
      unit,
      max_confidence: maxConfidence === "" ? null : Number(maxConfidence),
      fallback_only: fallbackOnly,
      limit,
      ...(queue.kind === "pairwise" ? { compare_with: compareWith || null } : {}),
    });

  return (
    <form className="fb-enqueue row" aria-label={`Queue episodes for ${queue.name}`} onSubmit={(e) => { e.preventDefault(); submit(); }}>
      <label className="field">
        Deployment
        <select value={deployment} onChange={(e) => setPicked(Number(e.target.value))}>
          {deployments.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </label>
      {queue.kind === "pairwise" && (
        <label className="field" title="Episode B answers the same ticket from another deployment (never the same checkpoint)">
          Compare with
          <select value={compareWith} onChange={(e) => setCompareWith(Number(e.target.value))}>
            <option value={0}>any other deployment</option>
            {deployments
              .filter((d) => d.id !== deployment)
              .map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
          </select>
        </label>
      )}
      {queue.kind === "rating" && (
        <label className="field">
          Unit
          <select value={unit} onChange={(e) => setUnit(e.target.value as "episode" | "step")}>
            <option value="episode">episodes</option>
            <option value="step">single steps</option>
          </select>
        </label>
      )}
      <label className="field">
        Confidence below
        <input type="number" min={0} max={1} step={0.05} value={maxConfidence} placeholder="any" onChange={(e) => setMaxConfidence(e.target.value)} />
      </label>
      <label className="field check">
        <input type="checkbox" checked={fallbackOnly} onChange={(e) => setFallbackOnly(e.target.checked)} /> answered by the fallback
      </label>
      <label className="field">
        At most
        <input type="number" min={1} max={500} value={limit} onChange={(e) => setLimit(Number(e.target.value))} />
      </label>
      <button type="submit">Queue episodes</button>
      {result && <span className="ok">{result}</span>}
      <ErrorList error={enqueue.error} />
    </form>
  );
}
