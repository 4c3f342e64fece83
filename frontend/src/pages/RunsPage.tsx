import { useEffect, useState } from "react";
import { LaunchForm } from "../runs/LaunchForm";
import { RunList } from "../runs/RunList";
import { runsApi } from "../runs/runsApi";
import type { Me } from "../runs/types";
import "../runs/runs.css";

/** All runs of your projects, and the form that launches a new one. */
export function RunsPage() {
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    runsApi.me().then(setMe, (e: Error) => setError(e.message));
  }, []);
  return (
    <main className="page wide runs-ui">
      <h1>Runs</h1>
      {error && <p className="error" role="alert">{error}</p>}
      <RunList projects={me?.memberships ?? []} />
      {me && <LaunchForm memberships={me.memberships} />}
    </main>
  );
}
