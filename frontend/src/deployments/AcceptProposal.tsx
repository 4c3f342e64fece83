import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../api";
import { evolutionApi, intentName, type IntentProposal } from "./evolution";
import { ownerChoices } from "./CorrectionForm";
import { deploymentQueries } from "./queries";

interface Props {
  deploymentId: number;
  proposal: IntentProposal;
}

/** "Put on the canvas": a name, what it means and who owns it; the draft then opens in the designer. */
export function AcceptProposal({ deploymentId, proposal }: Props) {
  const { data: catalogue } = useQuery(
    deploymentQueries.catalogue(deploymentId),
  );
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(intentName(proposal.name));
  const [description, setDescription] = useState(proposal.description);
  const [owner, setOwner] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  if (!open)
    return (
      <button type="button" className="secondary" onClick={() => setOpen(true)}>
        Put on the canvas
      </button>
    );
  const submit = async () => {
    setBusy(true);
    setErrors([]);
    try {
      const accepted = await evolutionApi.accept(deploymentId, {
        name,
        description,
        owner,
      });
      window.location.assign(accepted.designer);
    } catch (e) {
      const fields =
        e instanceof ApiError
          ? (e.body.errors ?? { detail: [e.message] })
          : { detail: [String(e)] };
      setErrors(
        Object.entries(fields).flatMap(([field, lines]) =>
          lines.map((line) => `${field}: ${line}`),
        ),
      );
      setBusy(false);
    }
  };
  return (
    <form
      className="accept-proposal"
      aria-label={`Put ${proposal.name} on the canvas`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="field">
        Intent name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={40}
          required
        />
      </label>
      <label className="field">
        What it means
        <input
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={500}
          required
        />
      </label>
      <label className="field">
        Owner
        <select
          aria-label="Owner"
          value={owner}
          onChange={(e) => setOwner(e.target.value)}
        >
          <option value="">(give it to an agent in the designer)</option>
          {ownerChoices(catalogue?.agents ?? []).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.id}
            </option>
          ))}
        </select>
      </label>
      {errors.length > 0 && (
        <ul className="error" role="alert">
          {errors.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <button type="submit" disabled={busy}>
        Add to the design
      </button>
      <button type="button" className="link" onClick={() => setOpen(false)}>
        cancel
      </button>
    </form>
  );
}
