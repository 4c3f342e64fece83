import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../api";
import { CatalogueList } from "../datasets/CatalogueList";
import { LabelChart } from "../datasets/LabelChart";
import { datasetQueries, EDITOR_ROLES } from "../datasets/queries";
import { SplitSummary } from "../datasets/SplitSummary";
import { UploadForm } from "../datasets/UploadForm";
import { VersionRows } from "../datasets/VersionRows";
import "../datasets/datasets.css";
import { formatTime } from "../runs/format";
import { pageData } from "../runs/pageData";
import { runQueries } from "../runs/queries";

/** One dataset: pick a version; its label distribution, splits and rows; upload the next version. */
export function DatasetPage() {
  const datasetId = pageData<{ dataset: number }>()?.dataset ?? 0;
  const queryClient = useQueryClient();
  const dataset = useQuery(datasetQueries.detail(datasetId));
  const versions = useQuery(datasetQueries.versions(datasetId)).data ?? [];
  const me = useQuery(runQueries.me()).data ?? null;
  const [chosen, setChosen] = useState<number | null>(null);
  const version = versions.find((v) => v.id === chosen) ?? versions[0] ?? null;
  const labels = useQuery({ ...datasetQueries.labels(version?.id ?? 0), enabled: version !== null });
  const splits = useQuery({ ...datasetQueries.splits(version?.id ?? 0), enabled: version !== null });
  const project = dataset.data?.project ?? 0;
  const role = me?.memberships.find((m) => m.project === project)?.role ?? "";
  const mayEdit = EDITOR_ROLES.includes(role) || Boolean(me?.is_staff);
  const mayQueue = ["product_manager", "admin"].includes(role) || Boolean(me?.is_staff); // who manages queues
  const intents = (labels.data?.intents ?? []).map((i) => i.name);

  if (dataset.error) {
    const missing = dataset.error instanceof ApiError && dataset.error.status === 404;
    return (
      <main className="page wide runs-ui datasets-ui">
        <p className="error">{missing ? `Dataset ${datasetId} does not exist or is not in your projects.` : dataset.error.message}</p>
      </main>
    );
  }
  return (
    <main className="page wide runs-ui datasets-ui">
      <p className="crumbs">
        <a href="/datasets/">Datasets</a> / {dataset.data?.name ?? `dataset ${datasetId}`}
      </p>
      <h1>{dataset.data?.name}</h1>
      {dataset.data?.description && <p>{dataset.data.description}</p>}
      {dataset.data && <CatalogueList catalogue={dataset.data.catalogue} />}
      {versions.length === 0 && <p className="muted">No version yet: upload a file.</p>}
      {version && (
        <section className="card" aria-label="Version">
          <div className="card-head">
            <h2>
              Version{" "}
              <select aria-label="Version" value={version.id} onChange={(e) => setChosen(Number(e.target.value))}>
                {versions.map((v) => (
                  <option key={v.id} value={v.id}>
                    v{v.number} · {v.row_count} rows
                  </option>
                ))}
              </select>
            </h2>
            <a className="button secondary" href={`/api/dataset-versions/${version.id}/export/`} download>
              Export JSONL
            </a>
          </div>
          <p className="small muted">
            {version.note} · {formatTime(version.created_at)} by {version.created_by ?? "–"} · content{" "}
            <code title={version.content_hash}>{version.content_hash.slice(0, 12)}</code>
          </p>
        </section>
      )}
      {version && (
        <div className="dataset-columns">
          <section className="card" aria-label="Label distribution">
            <h2>Labels</h2>
            {labels.data && <LabelChart distribution={labels.data} />}
            {labels.data && labels.data.unlabelled.count > 0 && mayQueue && (
              <p className="hint" data-testid="label-unlabelled">
                {labels.data.unlabelled.count} {labels.data.unlabelled.count === 1 ? "row has" : "rows have"} no label yet:
                annotators label them in an intents queue (<a href="/feedback/">Feedback</a>, a queue of kind
                “choose the intents of dataset rows”, then <em>Queue unlabelled rows</em>).
              </p>
            )}
          </section>
          <section className="card" aria-label="Splits">
            <h2>Splits</h2>
            {splits.data && <SplitSummary summary={splits.data} version={version.id} />}
          </section>
        </div>
      )}
      {version && <VersionRows key={version.id} version={version.id} intents={intents} />}
      {mayEdit && (
        <UploadForm
          datasetId={datasetId}
          onUploaded={(result) => {
            setChosen(result.version.id);
            void queryClient.invalidateQueries({ queryKey: datasetQueries.versions(datasetId).queryKey });
          }}
        />
      )}
    </main>
  );
}
