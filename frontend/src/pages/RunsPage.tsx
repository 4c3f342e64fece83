import { useQuery } from "@tanstack/react-query";
import { LaunchForm } from "../runs/LaunchForm";
import { RunList } from "../runs/RunList";
import { runQueries } from "../runs/queries";
import "../runs/runs.css";

/** All runs of your projects, and the form that launches a new one. */
export function RunsPage() {
  const { data: me, error } = useQuery(runQueries.me());
  return (
    <main className="page wide runs-ui">
      <h1>Runs</h1>
      {error && <p className="error" role="alert">{error.message}</p>}
      <RunList projects={me?.memberships ?? []} />
      {me && <LaunchForm memberships={me.memberships} />}
    </main>
  );
}
