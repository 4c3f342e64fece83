import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../api";
import { deploymentsApi } from "./deploymentsApi";
import { errorLines } from "./format";
import { ErrorList } from "./ErrorList";
import { DEFAULT_WRITER, WriterFields, writerRequest } from "./WriterFields";
import { FallbackPreview } from "./FallbackPreview";
import { SCOPE_GATE_TRADE } from "./ScopeGateControl";
import { deploymentQueries } from "./queries";

/** Deploy the checkpoint of a succeeded run (product managers and admins). Runs that cannot be deployed
 * (not MAPPO/IPPO, no checkpoint, …) are listed disabled, each with the reason. */
export function DeployForm({ projects }: { projects: number[] }) {
  const [run, setRun] = useState("");
  const [name, setName] = useState("");
  const [writer, setWriter] = useState(DEFAULT_WRITER);
  // the breaker's confidence threshold: null = the run's spec's (shown once the preview reports it)
  const [threshold, setThreshold] = useState<number | null>(null);
  // routing teams: whether tickets outside the catalogue go to a person; null = where the run starts
  const [scopeGate, setScopeGate] = useState<boolean | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const candidates = useQuery(deploymentQueries.candidates()).data ?? [];
  const runs = candidates.filter((r) => projects.includes(r.project));
  // The run's own threshold and whether its environment has a dev split to preview the fallback on.
  const chosen = runs.find((r) => String(r.id) === run);
  const specThreshold = chosen?.confidence_threshold ?? null;

  const deploy = async () => {
    setBusy(true);
    try {
      const created = await deploymentsApi.create({
        run: Number(run),
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(writerRequest(writer) ? { generation: writerRequest(writer) } : {}),
        ...(threshold !== null ? { confidence_threshold: threshold } : {}),
        ...(scopeGate !== null && chosen?.routing ? { scope_gate: scopeGate } : {}),
      });
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
          <select
            value={run}
            onChange={(e) => {
              setRun(e.target.value);
              setThreshold(null);
              setScopeGate(null);
            }}
            required
          >
            <option value="">choose a succeeded run</option>
            {runs.map((r) => (
              <option key={r.id} value={r.id} disabled={!r.deployable} title={r.why ?? undefined}>
                #{r.id} {r.name}
                {r.deployable ? "" : " — cannot be deployed"}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} placeholder="the run's name" />
        </label>
        {run && (
          <label>
            Breaker threshold{" "}
            <input
              type="range"
              min={0}
              max={1}
              step={0.01}
              aria-label="confidence threshold"
              value={threshold ?? specThreshold ?? 0.5}
              onChange={(e) => setThreshold(Number(e.target.value))}
            />{" "}
            <output>{(threshold ?? specThreshold ?? 0.5).toFixed(2)}</output>
          </label>
        )}
        {chosen?.routing && (
          <label title={SCOPE_GATE_TRADE}>
            <input
              type="checkbox"
              checked={scopeGate ?? chosen.scope_gate}
              onChange={(e) => setScopeGate(e.target.checked)}
            />{" "}
            Hand tickets outside the catalogue to a person
          </label>
        )}
        <WriterFields value={writer} onChange={setWriter} />
        <button type="submit" disabled={busy || !run}>
          Deploy
        </button>
      </form>
      {chosen?.routing && (
        <p className="hint" data-testid="scope-gate-trade">
          Tickets outside the catalogue: {SCOPE_GATE_TRADE}
        </p>
      )}
      {chosen?.fallback_preview && <FallbackPreview run={chosen.id} threshold={threshold} />}
      {chosen && !chosen.fallback_preview && (
        <p className="hint" data-testid="fallback-preview-none">
          No fallback preview for this team: its environment has no dev split of tickets to replay.
        </p>
      )}
      {runs.length === 0 && <p className="hint">No succeeded training run yet: train a team on the Runs page first.</p>}
      {runs.some((r) => !r.deployable) && (
        <details data-testid="undeployable">
          <summary className="hint">Why some runs cannot be deployed</summary>
          <ul className="deploy-candidates">
            {runs
              .filter((r) => !r.deployable)
              .map((r) => (
                <li key={r.id}>
                  #{r.id} {r.name}: {r.why}
                </li>
              ))}
          </ul>
        </details>
      )}
      <ErrorList lines={errors} />
    </section>
  );
}
