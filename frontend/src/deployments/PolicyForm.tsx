import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import {
  draftOf,
  errorsOf,
  policyBody,
  policyImplication,
  POLICY_FIELDS,
  savePolicy,
  valueText,
  type Draft,
  type FieldErrors,
  type Policy,
} from "./policyFields";

interface Props {
  deploymentId: number;
  policy: Policy;
  /** Product managers and admins change the policy (the API's permission); others read it. */
  canEdit: boolean;
  onSaved: () => void;
}

/** The deployment's evolution policy: what its values imply, each value with its meaning, and a form for
 * those who may change it (a bad value's error beside its field). Keyed by the policy, so a saved policy
 * starts a fresh form. */
export function PolicyForm({ deploymentId, policy, canEdit, onSaved }: Props) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(policy));
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: (body: Partial<Policy>) => savePolicy(deploymentId, body),
    onSuccess: () => {
      setErrors({});
      onSaved();
    },
    onError: (error: Error) => setErrors(errorsOf(error)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { body, errors: found } = policyBody(draft, policy);
    setErrors(found);
    if (Object.keys(found).length === 0 && Object.keys(body).length > 0) save.mutate(body);
  };
  const error = (key: keyof FieldErrors) =>
    errors[key] && (
      <span className="error small" role="alert" data-testid={`policy-error-${key}`}>
        {" "}
        {errors[key]}
      </span>
    );

  return (
    <div data-testid="policy-form">
      <p className="small" data-testid="policy-implication">
        {policyImplication(policy)}
      </p>
      <details className="evolution-policy">
      <summary>{canEdit ? "Change the evolution policy" : "The evolution policy"}</summary>
      {canEdit ? (
        <form onSubmit={submit}>
          {POLICY_FIELDS.map((f) => (
            <p key={f.key}>
              <label>
                {f.label}{" "}
                <input
                  name={f.key}
                  type="number"
                  step={f.integer ? 1 : "any"}
                  min={f.min}
                  max={f.max}
                  value={draft[f.key]}
                  onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
                />{" "}
                {f.unit}
              </label>
              {error(f.key)}
              <br />
              <span className="small muted">{f.meaning}</span>
            </p>
          ))}
          <p>
            <label>
              <input
                name="auto_promote"
                type="checkbox"
                checked={draft.auto_promote}
                onChange={(e) => setDraft({ ...draft, auto_promote: e.target.checked })}
              />{" "}
              Promote by itself a challenger the rule accepts
            </label>
            {error("auto_promote")}
          </p>
          <button type="submit" disabled={save.isPending}>
            Save the policy
          </button>
          {error("form")}
        </form>
      ) : (
        <dl className="small">
          {POLICY_FIELDS.map((f) => (
            <div key={f.key}>
              <dt>{f.label}</dt>
              <dd>
                {valueText(f, policy)} <span className="muted">{f.meaning}</span>
              </dd>
            </div>
          ))}
          <dt>Promotion</dt>
          <dd>{policy.auto_promote ? "by itself when the rule accepts" : "by a person"}</dd>
        </dl>
      )}
      </details>
    </div>
  );
}
