import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { deploymentQueries } from "./queries";
import { type WriterTrial, writerApi } from "./reply";

/** Which backend writes this deployment's replies, and one test call that shows the answer or the error. */
export function WriterPanel({ deploymentId }: { deploymentId: number }) {
  const settings = useQuery(deploymentQueries.writer(deploymentId)).data;
  const [trial, setTrial] = useState<WriterTrial | null>(null);
  const [busy, setBusy] = useState(false);
  if (!settings) return null;
  const test = async () => {
    setBusy(true);
    try {
      setTrial(await writerApi.test(deploymentId));
    } catch (e) {
      setTrial({ ok: false, error: (e as Error).message, latency_ms: 0 });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="writer-panel small" data-testid="writer-panel">
      Replies written by <b>{settings.backend}</b>
      {settings.model && ` (${settings.model})`}
      {settings.backend === "openai_compatible" && ` at ${settings.base_url}`}{" "}
      <button type="button" className="secondary" onClick={test} disabled={busy}>
        {busy ? "Testing…" : "Test the writer"}
      </button>
      {trial && (
        <p className={trial.ok ? "muted" : "error"} data-testid="writer-trial">
          {trial.ok ? `Answered in ${trial.latency_ms.toFixed(0)} ms: “${trial.text}”` : `Failed: ${trial.error}`}
        </p>
      )}
    </div>
  );
}
