import { useQuery } from "@tanstack/react-query";
import { StateBadge } from "../runs/StateBadge";
import { formatTime } from "../runs/format";
import { runQueries } from "../runs/queries";

const SHOWN = 6;
const NEWEST = new URLSearchParams({ ordering: "-created_at" });

/** The newest runs of your projects, with their state; a link to all of them. */
export function RecentRuns() {
  const { data, isError } = useQuery({ ...runQueries.list(NEWEST), select: (page) => page.results.slice(0, SHOWN) });
  const runs = data ?? (isError ? [] : null);
  return (
    <section className="card" data-testid="home-runs">
      <div className="card-head">
        <h2>Recent runs</h2>
        <a href="/runs/">All runs →</a>
      </div>
      {runs === null ? (
        <p className="muted">Loading…</p>
      ) : runs.length === 0 ? (
        <p className="muted">No runs yet. Design a team from a template below, publish it, then launch a run.</p>
      ) : (
        <ul className="home-list">
          {runs.map((run) => (
            <li key={run.id}>
              <a href={`/runs/${run.id}/`}>
                #{run.id} {run.name}
              </a>
              <StateBadge state={run.state} cancelling={run.cancel_requested} />
              <span className="muted small">{formatTime(run.created_at)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
