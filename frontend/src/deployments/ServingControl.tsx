import { useState } from "react";
import { deploymentsApi } from "./deploymentsApi";
import type { DeploymentStatus, DeploymentSummary } from "./types";

interface Props {
  deployment: DeploymentSummary;
  canControl: boolean;
  onChanged: (status: DeploymentStatus) => void;
}

/** Whether the deployment serves tickets, and the Stop / Resume button for those who deploy. */
export function ServingControl({ deployment, canControl, onChanged }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const stopped = deployment.status === "stopped";

  const toggle = () => {
    setBusy(true);
    setError("");
    (stopped ? deploymentsApi.resume : deploymentsApi.stop)(deployment.id)
      .then((fresh) => onChanged(fresh.status), (e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };

  return (
    <span className="serving" data-testid={`serving-${deployment.id}`}>
      <span className={`serving-state serving-${deployment.status}`}>{deployment.status}</span>
      {canControl && (
        <button type="button" className={stopped ? "secondary" : "danger"} disabled={busy} onClick={toggle}>
          {stopped ? "Resume" : "Stop"}
        </button>
      )}
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
