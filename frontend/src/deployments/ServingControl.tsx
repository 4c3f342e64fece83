import { useMutation, useQueryClient } from "@tanstack/react-query";
import { deploymentsApi } from "./deploymentsApi";
import { patchDeployment } from "./queries";
import type { DeploymentSummary } from "./types";

interface Props {
  deployment: DeploymentSummary;
  canControl: boolean;
}

/** Whether the deployment serves tickets, and the Stop / Resume button for those who deploy; the answer's
 * status is written into the cached deployment (its page or its row). */
export function ServingControl({ deployment, canControl }: Props) {
  const queryClient = useQueryClient();
  const stopped = deployment.status === "stopped";
  const toggle = useMutation({
    mutationFn: () => (stopped ? deploymentsApi.resume : deploymentsApi.stop)(deployment.id),
    onSuccess: (fresh) => patchDeployment(queryClient, deployment.id, { status: fresh.status }),
  });

  return (
    <span className="serving" data-testid={`serving-${deployment.id}`}>
      <span className={`serving-state serving-${deployment.status}`}>{deployment.status}</span>
      {canControl && (
        <button type="button" className={stopped ? "secondary" : "danger"} disabled={toggle.isPending} onClick={() => toggle.mutate()}>
          {stopped ? "Resume" : "Stop"}
        </button>
      )}
      {toggle.error && (
        <span className="error" role="alert">
          {toggle.error.message}
        </span>
      )}
    </span>
  );
}
