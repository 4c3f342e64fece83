import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { datasetQueries } from "../datasets/queries";
import { deploymentQueries } from "../deployments/queries";
import { ErrorList } from "./ErrorList";
import { feedbackApi } from "./feedbackApi";
import { feedbackQueries } from "./queries";
import type { Queue } from "./types";

/** Queue a dataset version's unlabelled rows for annotators to choose their intents (intents queues); the
 * intents come from the dataset's catalogue, or from a deployment's when the dataset declares none. */
export function EnqueueDatasetForm({ queue }: { queue: Queue }) {
  const queryClient = useQueryClient();
  const { data: deployments = [] } = useQuery({
    ...deploymentQueries.list(),
    select: (body) => body.results.filter((d) => d.project === queue.project),
  });
  // Chosen by name: a version's id is shown nowhere, so a user could not type it.
  const { data: datasets = [] } = useQuery({
    ...datasetQueries.list(),
    select: (body) => body.results.filter((d) => d.project === queue.project && d.latest_version !== null),
  });
  const [version, setVersion] = useState("");
  const [deployment, setDeployment] = useState(0);
  const [limit, setLimit] = useState(50);
  const [result, setResult] = useState("");
  const enqueue = useMutation({
    mutationFn: () =>
      feedbackApi.enqueueDataset(queue.id, { version: Number(version), limit, ...(deployment ? { deployment } : {}) }),
    onSuccess: (body) => {
      setResult(`${body.added} row${body.added === 1 ? "" : "s"} queued`);
      for (const changed of [feedbackQueries.queues(), feedbackQueries.agreement(queue.id)])
        void queryClient.invalidateQueries({ queryKey: changed.queryKey, exact: true });
    },
  });
  return (
    <form
      className="fb-enqueue row"
      aria-label={`Queue dataset rows for ${queue.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        enqueue.mutate();
      }}
    >
      <label className="field">
        Dataset
        <select aria-label="Dataset" required value={version} onChange={(e) => setVersion(e.target.value)}>
          <option value="">choose a dataset</option>
          {datasets.map((d) => (
            <option key={d.id} value={d.latest_version?.id}>
              {d.name} · v{d.latest_version?.number} ({d.latest_version?.row_count} rows)
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Intents of
        <select value={deployment} onChange={(e) => setDeployment(Number(e.target.value))}>
          <option value={0}>the dataset's catalogue</option>
          {deployments.map((d) => (
            <option key={d.id} value={d.id}>
              deployment {d.name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        At most
        <input type="number" min={1} max={500} value={limit} onChange={(e) => setLimit(Number(e.target.value))} />
      </label>
      <button type="submit" disabled={enqueue.isPending || !version}>
        Queue unlabelled rows
      </button>
      {result && <span className="ok">{result}</span>}
      <ErrorList error={enqueue.error} />
    </form>
  );
}
