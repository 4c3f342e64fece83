import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { fieldErrorText } from "../api";
import { deploymentsApi } from "./deploymentsApi";
import { patchDeployment } from "./queries";
import type { DeploymentSummary } from "./types";

/** A share (0.15) as a percent (15), to one decimal. */
export const asPercent = (share: number) => Math.round(share * 1000) / 10;

export function exploreText(share: number): string {
  return share > 0
    ? `${asPercent(share)}% of replies are written in another style and marked explored`
    : "Off: every reply is written in the writer's style";
}

interface Props {
  deployment: DeploymentSummary;
  canEdit: boolean;
}

/** The share of replies written in a style other than the writer's choice, so that annotators' ratings
 * contrast styles (decision 0035); those who deploy change it (the server refuses a share above its bound). */
export function StyleExploreControl({ deployment, canEdit }: Props) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(
    String(asPercent(deployment.style_explore)),
  );
  const save = useMutation({
    mutationFn: () =>
      deploymentsApi.setStyleExplore(deployment.id, Number(draft) / 100),
    onSuccess: (fresh) =>
      patchDeployment(queryClient, deployment.id, {
        style_explore: fresh.style_explore,
      }),
  });

  return (
    <section
      className="card style-explore"
      aria-label="Reply style exploration"
      data-testid="style-explore"
    >
      <h2>Reply style exploration</h2>
      <p className="small">{exploreText(deployment.style_explore)}.</p>
      {canEdit && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <label>
            Explored share (%){" "}
            <input
              type="number"
              min={0}
              step={1}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
            />
          </label>
          <button type="submit" className="secondary" disabled={save.isPending}>
            Save
          </button>
        </form>
      )}
      {save.error && (
        <p className="error" role="alert">
          {fieldErrorText(save.error)}
        </p>
      )}
    </section>
  );
}
