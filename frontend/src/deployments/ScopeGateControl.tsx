import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { fieldErrorText } from "../api";
import { deploymentsApi } from "./deploymentsApi";
import { patchDeployment } from "./queries";
import type { DeploymentSummary } from "./types";

export function scopeGateText(on: boolean): string {
  return on
    ? "On: a ticket outside the team's intents gets a reply saying a person will take it over, and is logged as out of scope"
    : "Off: the team answers every ticket with one of its intents, even one that asks for something else";
}

/** What the gate costs, in words a product manager can weigh (decisions 0020, 0031). */
export const SCOPE_GATE_TRADE =
  "The gate compares each ticket with the intents' descriptions and labelled tickets; its floor keeps 99.5% " +
  "of the dev tickets. Tickets written unlike the training data are handed to a person more often (about one " +
  "in ten of our own hand-written in-scope tests), in exchange for almost no out-of-scope ticket answered wrongly.";

interface Props {
  deployment: DeploymentSummary;
  canEdit: boolean;
}

/** Whether a routing team hands tickets outside its catalogue to a person (serving.scope); those who deploy
 * turn it on or off, and the next ticket follows. */
export function ScopeGateControl({ deployment, canEdit }: Props) {
  const queryClient = useQueryClient();
  // the switch moves at once; the sentence above it says what the server stored
  const [switched, setSwitched] = useState(deployment.scope_gate);
  const save = useMutation({
    mutationFn: (on: boolean) => deploymentsApi.setScopeGate(deployment.id, on),
    onSuccess: (fresh) =>
      patchDeployment(queryClient, deployment.id, { scope_gate: fresh.scope_gate }),
    onError: () => setSwitched(deployment.scope_gate),
  });

  return (
    <section className="card scope-gate" aria-label="Out-of-scope tickets" data-testid="scope-gate">
      <h2>Out-of-scope tickets</h2>
      <p className="small">{scopeGateText(deployment.scope_gate)}.</p>
      <p className="small muted">{SCOPE_GATE_TRADE}</p>
      {canEdit && (
        <label>
          <input
            type="checkbox"
            checked={switched}
            disabled={save.isPending}
            onChange={(e) => {
              setSwitched(e.target.checked);
              save.mutate(e.target.checked);
            }}
          />{" "}
          Hand tickets outside the catalogue to a person
        </label>
      )}
      {save.error && (
        <p className="error" role="alert">
          {fieldErrorText(save.error)}
        </p>
      )}
    </section>
  );
}
