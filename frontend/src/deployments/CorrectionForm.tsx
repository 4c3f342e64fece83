import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../api";
import { deploymentQueries } from "./queries";
import type { Correction, CorrectionBody } from "./types";

interface Props {
  deployment: number;
  /** Stores the correction (the decision's or the ticket's endpoint). */
  save: (body: CorrectionBody) => Promise<Correction>;
  onSaved: (correction: Correction) => void;
  onCancel: () => void;
}

/** Who owns `intents` now in the deployed team (the agents' intents), to show beside the owner's choice. */
export function ownersOf(intents: string[], agents: { id: string; intents: string[] }[]): string[] {
  return agents.filter((a) => a.intents.some((i) => intents.includes(i))).map((a) => a.id);
}

/** The agents a ticket may be given to: the team's agents but its reviewers, which approve answers and own no
 * intents (the server answers 400 on a reviewer as the owner; the catalogue marks them `reviews`). */
export function ownerChoices<T extends { reviews: boolean }>(agents: T[]): T[] {
  return agents.filter((a) => !a.reviews);
}

/** What was right for a ticket: its intents (checkboxes from the deployment's catalogue, each with what it
 * means) and/or its owner (an agent of the team), optionally a better reply and why. */
export function CorrectionForm({ deployment, save, onSaved, onCancel }: Props) {
  const queryClient = useQueryClient();
  const { data: catalogue, error: loadError } = useQuery(deploymentQueries.catalogue(deployment));
  const [intents, setIntents] = useState<string[]>([]);
  const [owner, setOwner] = useState("");
  const [reply, setReply] = useState("");
  const [reason, setReason] = useState("");
  // No intent of the catalogue fits: the ticket lands out of scope and feeds the proposed intents.
  const [noneOfThese, setNoneOfThese] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);

  const toggle = (name: string) => setIntents((old) => (old.includes(name) ? old.filter((n) => n !== name) : [...old, name]));
  const submit = async () => {
    setBusy(true);
    setErrors({});
    try {
      const body: CorrectionBody = noneOfThese
        ? { intents: [], owner: "", reply, reason, none_of_these: true }
        : { intents, owner, reply, reason, none_of_these: false };
      onSaved(await save(body));
      // The correction marked decisions wrong: the steps and the decisions are read again. The ticket list is
      // only marked stale (the caller patches its row): a ticket corrected under a filter it no longer meets
      // (review: unreviewed) stays in view with where it landed until the filters change or the page reloads.
      for (const key of ["episodes", "decisions"]) void queryClient.invalidateQueries({ queryKey: [key] });
      void queryClient.invalidateQueries({ queryKey: ["episode-rows"], refetchType: "none" });
    } catch (e) {
      setErrors(e instanceof ApiError ? (e.body.errors ?? { detail: [e.message] }) : { detail: [String(e)] });
    } finally {
      setBusy(false);
    }
  };
  if (loadError) return <p className="error">{loadError.message}</p>;
  if (!catalogue) return <p className="muted">Loading the deployment's intents…</p>;
  const owners = ownersOf(intents, catalogue.agents);
  const messages = Object.entries(errors).flatMap(([field, lines]) => lines.map((line) => `${field}: ${line}`));
  return (
    <form
      className="correction-form"
      aria-label="Correct"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <fieldset className="correction-intents">
        <legend>Right intents</legend>
        {catalogue.intents.map((intent) => (
          <label key={intent.name} className="correction-intent">
            <input
              type="checkbox"
              disabled={noneOfThese}
              checked={!noneOfThese && intents.includes(intent.name)}
              onChange={() => toggle(intent.name)}
            />
            <b>{intent.name}</b> <span className="small muted">{intent.description}</span>
          </label>
        ))}
        <label className="correction-intent">
          <input type="checkbox" checked={noneOfThese} onChange={() => setNoneOfThese((old) => !old)} />
          <b>None of these</b>{" "}
          <span className="small muted">the ticket asks for something outside the catalogue (a candidate new intent)</span>
        </label>
      </fieldset>
      <label className="field">
        Right owner
        <select
          aria-label="Right owner"
          value={noneOfThese ? "" : owner}
          disabled={noneOfThese}
          onChange={(e) => setOwner(e.target.value)}
        >
          <option value="">(as the intents say)</option>
          {ownerChoices(catalogue.agents).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.id}
              {agent.intents.length > 0 ? ` — owns ${agent.intents.join(", ")}` : ""}
            </option>
          ))}
        </select>
      </label>
      {intents.length > 0 && !owner && owners.length > 0 && (
        <p className="hint">Owned now by {owners.join(", ")}.</p>
      )}
      <label className="field column">
        Better reply (optional)
        <textarea value={reply} onChange={(e) => setReply(e.target.value)} rows={3} maxLength={20000} />
      </label>
      <label className="field">
        Why (optional)
        <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={2000} />
      </label>
      {messages.length > 0 && (
        <ul className="error" role="alert">
          {messages.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <button type="submit" disabled={busy || (!noneOfThese && intents.length === 0 && !owner)}>
        Save correction
      </button>
      <button type="button" className="link" onClick={onCancel}>
        cancel
      </button>
    </form>
  );
}
