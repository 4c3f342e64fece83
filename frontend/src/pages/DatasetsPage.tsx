import { useQuery } from "@tanstack/react-query";
import { DatasetTable } from "../datasets/DatasetTable";
import { datasetQueries, EDITOR_ROLES } from "../datasets/queries";
import { UploadForm } from "../datasets/UploadForm";
import "../datasets/datasets.css";
import { runQueries } from "../runs/queries";

/** Your projects' own data: the datasets, and a form that uploads a file as a new one. */
export function DatasetsPage() {
  const list = useQuery(datasetQueries.list());
  const me = useQuery(runQueries.me()).data ?? null;
  const editable = (me?.memberships ?? []).filter((m) => EDITOR_ROLES.includes(m.role));
  return (
    <main className="page wide runs-ui datasets-ui">
      <h1>Datasets</h1>
      {list.error && (
        <p className="error" role="alert">
          {list.error.message}
        </p>
      )}
      <section className="card">
        <h2>Your datasets</h2>
        {list.data && <DatasetTable datasets={list.data.results} />}
      </section>
      {editable.length > 0 && <UploadForm projects={editable} />}
    </main>
  );
}
