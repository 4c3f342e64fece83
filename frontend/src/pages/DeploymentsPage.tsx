import { useQuery } from "@tanstack/react-query";
import { BreakerBadge } from "../deployments/BreakerBadge";
import { DeployForm } from "../deployments/DeployForm";
import { ServingControl } from "../deployments/ServingControl";
import { deploymentQueries } from "../deployments/queries";
import { mayDeploy } from "../deployments/roles";
import "../deployments/deployments.css";
import { formatTime } from "../runs/format";
import { runQueries } from "../runs/queries";

/** Deployed teams of your projects with their breaker state, and the form that deploys a trained run. */
export function DeploymentsPage() {
  const list = useQuery(deploymentQueries.list());
  const deployments = list.data?.results;
  const me = useQuery(runQueries.me()).data ?? null;
  const deployable = (me?.memberships ?? []).map((m) => m.project).filter((p) => mayDeploy(me, p));

  return (
    <main className="page wide runs-ui deployments-ui">
      <h1>Deployments</h1>
      {list.error && (
        <p className="error" role="alert">
          {list.error.message}
        </p>
      )}
      <section className="card">
        <h2>Deployed teams</h2>
        {deployments?.length === 0 && <p className="muted">Nothing deployed yet.</p>}
        {deployments && deployments.length > 0 && (
          <table className="run-table" data-testid="deployments">
            <thead>
              <tr>
                <th>Name</th>
                <th>Project</th>
                <th>Trained by</th>
                <th>Breaker</th>
                <th>Serving</th>
                <th>Deployed</th>
              </tr>
            </thead>
            <tbody>
              {deployments.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={`/deployments/${d.id}/`}>{d.name}</a>
                  </td>
                  <td>{d.project_name}</td>
                  <td>
                    <a href={`/runs/${d.run}/`}>run {d.run}</a>
                  </td>
                  <td>
                    <BreakerBadge state={d.breaker_state} />
                  </td>
                  <td>
                    <ServingControl deployment={d} canControl={mayDeploy(me, d.project) || Boolean(me?.is_staff)} />
                  </td>
                  <td className="small">
                    {formatTime(d.created_at)} by {d.created_by ?? "–"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {deployable.length > 0 && <DeployForm projects={deployable} />}
    </main>
  );
}
