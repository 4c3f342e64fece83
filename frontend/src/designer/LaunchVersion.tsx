import { useState } from "react";
import type { ApiError } from "../api";
import { runsApi } from "../runs/runsApi";

interface Props {
  project: number;
  workflowId: number;
  workflowName: string;
  version: number;
}

/** Launch a training run of one published version, by reference (the run keeps its workflow link);
 * an episode budget typed here travels as a recorded override, never as an edited spec. */
export function LaunchVersion({ project, workflowId, workflowName, version }: Props) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(`${workflowName} v${version}`);
  const [device, setDevice] = useState<"cpu" | "gpu">("cpu");
  const [episodes, setEpisodes] = useState("");
  const [error, setError] = useState("");
  const [sending, setSending] = useState(false);

  if (!open)
    return (
      <button className="secondary" onClick={() => setOpen(true)} title="Train this published version">
        Launch run
      </button>
    );

  const launch = async (event: React.FormEvent) => {
    event.preventDefault();
    setSending(true);
    setError("");
    try {
      const run = await runsApi.launch({
        project,
        name: name.trim(),
        kind: "training",
        device,
        workflow: workflowId,
        version,
        ...(episodes ? { overrides: { episodes: Number(episodes) } } : {}),
      });
      window.location.href = `/runs/${run.id}/`;
    } catch (e) {
      const err = e as ApiError;
      const details = Object.entries(err.body?.errors ?? {}).map(([k, v]) => `${k}: ${v.join(" ")}`);
      setError([err.message, ...details].join(" — "));
      setSending(false);
    }
  };

  return (
    <form className="launch-version" onSubmit={launch} aria-label={`Launch a run of version ${version}`}>
      <label className="field">
        <span>Run name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label className="field">
        <span>Worker</span>
        <select value={device} onChange={(e) => setDevice(e.target.value as "cpu" | "gpu")}>
          <option value="cpu">CPU worker</option>
          <option value="gpu">GPU worker</option>
        </select>
      </label>
      <label className="field" title="Leave empty to train for the budget the version was published with">
        <span>Episodes (optional)</span>
        <input type="number" min={1} value={episodes} onChange={(e) => setEpisodes(e.target.value)} placeholder="as published" />
      </label>
      {error && <p className="error" role="alert">{error}</p>}
      <button type="submit" disabled={sending || !name.trim()}>
        {sending ? "Launching…" : `Launch v${version}`}
      </button>
      <button type="button" className="link" onClick={() => setOpen(false)}>
        cancel
      </button>
    </form>
  );
}
