import { formatTime } from "../runs/format";
import type { Dataset } from "./types";

/** Your projects' datasets with their newest version. */
export function DatasetTable({ datasets }: { datasets: Dataset[] }) {
  if (datasets.length === 0) return <p className="muted">No datasets yet.</p>;
  return (
    <table className="run-table" data-testid="datasets">
      <thead>
        <tr>
          <th>Name</th>
          <th>Project</th>
          <th>Latest version</th>
          <th>Rows</th>
          <th>Made</th>
        </tr>
      </thead>
      <tbody>
        {datasets.map((d) => (
          <tr key={d.id}>
            <td>
              <a href={`/datasets/${d.id}/`}>{d.name}</a>
              {d.deployment !== null && <span className="badge">corrections of deployment {d.deployment}</span>}
            </td>
            <td>{d.project_name}</td>
            <td>{d.latest_version ? `v${d.latest_version.number}` : "–"}</td>
            <td>{d.latest_version?.row_count ?? 0}</td>
            <td className="small">
              {formatTime(d.created_at)} by {d.created_by ?? "–"}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
