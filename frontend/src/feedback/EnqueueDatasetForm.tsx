import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { datasetQueries } from "../datasets/queries";
import type { Dataset } from "../datasets/types";
import { deploymentQueries } from "../deployments/queries";
import { ErrorList } from "./ErrorList";
import { feedbackApi } from "./feedbackApi";
import { ENQUEUE_DATASET_FIELDS, NO_CATALOGUE, ownIntentsLabel } from "./intentsSource";
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
  const chosen = datasets.find((d) => String(d.latest_version?.id) === version);
  const ownIntents = ownIntentsLabel(chosen);
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
      <IntentsOfField dataset={chosen} deployments={deployments} value={deployment} onChange={setDeployment} />
      <label className="field">
        At most
        <input type="number" min={1} max={500} value={limit} onChange={(e) => setLimit(Number(e.target.value))} />
      </label>
      <button type="submit" disabled={enqueue.isPending || !version || (ownIntents === null && !deployment)}>
        Queue unlabelled rows
      </button>
      {result && <span className="ok">{result}</span>}
      <ErrorList error={enqueue.error} labels={ENQUEUE_DATASET_FIELDS} />
    </form>
  );
}

/** Whose intents the rows are labelled with: the dataset's own (offered only when it has some) or a
 * deployment's; `value` 0 is "the dataset's own". */
export function IntentsOfField(props: {
  dataset: Dataset | undefined;
  deployments: { id: number; name: string }[];
  value: number;
  onChange: (deployment: number) => void;
}) {
  const { dataset, deployments, value, onChange } = props;
  const own = ownIntentsLabel(dataset);
  return (
    <label className="field">
      Intents of
      <select aria-label="Intents of" required={own === null} value={own === null && value === 0 ? "" : value} onChange={(e) => onChange(Number(e.target.value))}>
        {own === null ? <option value="">choose a deployment</option> : <option value={0}>{own}</option>}
        {deployments.map((d) => (
          <option key={d.id} value={d.id}>
            deployment {d.name}
          </option>
        ))}
      </select>
      {own === null && (
        <span className="hint" data-testid="no-catalogue">
          {deployments.length > 0 ? NO_CATALOGUE : "this dataset declares no intent catalogue and the project has no deployment: give the dataset a catalogue on Datasets"}
        </span>
      )}
    </label>
  );
}
