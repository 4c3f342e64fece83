import { useEffect, useState } from "react";
import { ApiError } from "../api";
import { runsApi } from "../runs/runsApi";
import type { RunSummary } from "../runs/types";
import { deploymentsApi } from "./deploymentsApi";
import { errorLines } from "./format";
import { ErrorList } from "./ErrorList";

/** Deploy the checkpoint of a succeeded run (product managers and admins). */
export function DeployForm({ projects }: { projects: number[] }) {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [run, setRun] = useState("");
  const [name, setName] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const projectKey = projects.join(",");
  useEffect(() => {
    const allowed = projectKey.split(",").map(Number);
    runsApi.list(new URLSearchParams({ state: "succeeded", kind: "training", page_size: "100" })).then(
      (body) => setRuns(body.results.filter((r) => allowed.includes(r.project))),
      () => undefined,
    );
  }, [projectKey]);

  const deploy = async () => {
    setBusy(true);
    try {
      const created = await deploymentsApi.create({ run: Number(run), ...(name.trim() ? { name: name.trim() } : {}) });
      window.location.assign(`/deployments/${created.id}/`);
    } catch (e) {
      const err = e as ApiError;
      setErrors(errorLines(err.body?.errors, err.message));
      setBusy(false);
    }
  };

  return (
    <section className="card">
      <h2>Deploy a trained team</h2>
      <form
        className="row"
        aria-label="Deploy a run"
        onSubmit={(e) => {
          e.preventDefault();
          deploy();
        }}
      >
        <label>
          Trained run{" "}
          <select value={run} onChange={(e) => setRun(e.target.value)} required>
            <option value="">choose a succeeded run</option>
            {runs.map((r) => (
              <option key={r.id} value={r.id}>
                #{r.id} {r.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} placeholder="the run's name" />
        </label>
        <button type="submit" disabled={busy || !run}>
          Deploy
        </button>
      </form>
      {runs.length === 0 && <p className="hint">No succeeded training run yet: train a team on the Runs page first.</p>}
      <ErrorList lines={errors} />
    </section>
  );
}
