import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatTime } from "../runs/format";
import { BatchScore } from "./BatchScore";
import { batchWritingFacts } from "./reply";
import { deploymentsApi } from "./deploymentsApi";
import { apiErrorLines } from "./format";
import { deploymentQueries } from "./queries";
import type { Batch } from "./types";
import { ErrorList } from "./ErrorList";

interface Props {
  deploymentId: number;
  /** Progress streamed over the deployment's WebSocket, by batch id. */
  live: Record<number, Batch>;
}

/** The hint's example ticket line: labelled with the deployment's own first intent, or without intents
 * while its catalogue loads (or when it has none). */
export function exampleTicket(intent?: string): string {
  const intents = intent ? `, "intents": [${JSON.stringify(intent)}]` : "";
  return `{"id": "t-1", "text": "the customer's message"${intents}}`;
}

/** Upload a JSONL file of tickets ({"id", "text", "intents"?} per line); a worker runs them, progress streams in.
 * The new batch is put at the top of the cached list. */
export function BatchPanel({ deploymentId, live }: Props) {
  const queryClient = useQueryClient();
  const list = deploymentQueries.batches(deploymentId);
  const batches = useQuery(list).data ?? [];
  const uploading = useMutation({
    mutationFn: async (file: File) => deploymentsApi.uploadBatch(deploymentId, await file.text()),
    onSuccess: (batch) => queryClient.setQueryData(list.queryKey, (old) => [batch, ...(old ?? [])]),
  });
  const busy = uploading.isPending;
  const firstIntent = useQuery(deploymentQueries.catalogue(deploymentId)).data?.intents[0]?.name;
  const upload = (file: File) => uploading.mutate(file);

  const shown = batches.map((b) => live[b.id] ?? b);
  return (
    <section className="card" aria-label="Batch of tickets">
      <div className="card-head">
        <h2>Batch of tickets</h2>
        <label className={`button secondary${busy ? " disabled" : ""}`}>
          Upload JSONL…
          <input
            type="file"
            accept=".jsonl,.json,.txt"
            hidden
            disabled={busy}
            aria-label="Ticket file (JSONL)"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = "";
              if (file) upload(file);
            }}
          />
        </label>
      </div>
      <p className="hint">One ticket per line: <code>{exampleTicket(firstIntent)}</code> (intents optional: with them each answer is scored).</p>
      <ErrorList lines={apiErrorLines(uploading.error)} />
      {shown.length > 0 && (
        <table className="run-table" data-testid="batches">
          <tbody>
            {shown.flatMap((b) => [
              <tr key={b.id}>
                <td>batch {b.id}</td>
                <td>
                  <span className={`run-state run-state-${b.state}`}>{b.state}</span>
                </td>
                <td className="batch-progress">
                  <span className="run-meter-bar">
                    <div style={{ width: `${b.total ? (100 * b.done) / b.total : 0}%` }} />
                  </span>
                  {b.done} / {b.total}
                </td>
                <td className="muted small">{formatTime(b.created_at)}</td>
                <td>
                  <a href={`/review/?batch=${b.id}&deployment=${b.deployment}`}>review</a>
                  {b.error && <span className="error"> {b.error}</span>}
                </td>
              </tr>,
              ...(b.score
                ? [
                    <tr key={`${b.id}-score`} className="batch-score-row">
                      <td colSpan={5}>
                        <BatchScore score={b.score} />
                      </td>
                    </tr>,
                  ]
                : []),
              ...(b.writing
                ? [
                    <tr key={`${b.id}-writing`} className="muted small" data-testid="batch-writing">
                      <td colSpan={5}>{batchWritingFacts(b.writing)}</td>
                    </tr>,
                  ]
                : []),
            ])}
          </tbody>
        </table>
      )}
    </section>
  );
}
