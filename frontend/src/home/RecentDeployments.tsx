import { useQuery } from "@tanstack/react-query";
import { homeQueries } from "./queries";

const SHOWN = 6;

/** Your projects' deployments: serving or stopped, and their circuit breaker. */
export function RecentDeployments() {
  const { data, isError } = useQuery({ ...homeQueries.deployments(), select: (page) => page.results.slice(0, SHOWN) });
  const deployments = data ?? (isError ? [] : null);
  return (
    <section className="card" data-testid="home-deployments">
      <div className="card-head">
        <h2>Deployments</h2>
        <a href="/deployments/">All deployments →</a>
      </div>
      {deployments === null ? (
        <p className="muted">Loading…</p>
      ) : deployments.length === 0 ? (
        <p className="muted">Nothing deployed yet: a finished training run can be deployed from the Deployments page.</p>
      ) : (
        <ul className="home-list">
          {deployments.map((d) => (
            <li key={d.id}>
              <a href={`/deployments/${d.id}/`}>{d.name}</a>
              <span className="badge">{d.status}</span>
              <span className="muted small">
                breaker {d.breaker_state} · run #{d.run} {d.run_name}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
