/** The deployment's evolution policy as a form (POST /api/deployments/<id>/evolution/): each field in the
 * unit a person thinks in (minutes, percentage points), what it means in words, and what the values imply. */
import { api, ApiError, type Schema } from "../api";

export type Policy = Required<Schema<"Policy">>;
export type PolicyKey = keyof Policy;
type NumberKey = Exclude<PolicyKey, "auto_promote">;

interface NumberField {
  key: NumberKey;
  label: string;
  /** What the value does, in words. */
  meaning: string;
  unit: string;
  /** The API's value is the form's times this (60: minutes to seconds; 0.01: points to a share). */
  scale: number;
  min: number;
  max: number;
  /** Whole numbers only (in the form's unit). */
  integer: boolean;
}

const field = (
  key: NumberKey,
  label: string,
  meaning: string,
  [unit, scale, min, max, integer]: [string, number, number, number, boolean],
): NumberField => ({ key, label, meaning, unit, scale, min, max, integer });

/** The policy's numbers in the order the form shows them (the API's bounds, in the form's units). */
export const POLICY_FIELDS: NumberField[] = [
  field("min_tickets", "Slice tickets a challenger needs",
    "A challenger is judged only once the evaluation slice holds at least this many tickets; before that it " +
    "stays a candidate that only a person can promote.", ["tickets", 1, 10, 1_000_000, true]),
  field("slice_every", "Slice share: one reviewed ticket in every",
    "Of the tickets operators confirm or correct in Review, one in this many joins the evaluation slice (never " +
    "trained on); the others go to training. Fixed once tickets are reviewed.", ["tickets", 1, 2, 100, true]),
  field("min_intent_tickets", "Slice tickets per intent",
    "An intent's own figure is checked only when the slice holds this many of its tickets.",
    ["tickets", 1, 1, 1_000_000, true]),
  field("margin", "Margin to promote",
    "A challenger must beat the champion's exact match on the slice by this much.", ["points", 0.01, 0, 50, false]),
  field("intent_tolerance", "Intent tolerance",
    "No intent may fall by more than this for a challenger to be promoted.", ["points", 0.01, 0, 50, false]),
  field("correction_weight", "Weight of a labelled row",
    "Each corrected or annotated row stands this many times among a challenger's training tickets.",
    ["times", 1, 1, 20, true]),
  field("min_interval_s", "Minimum interval",
    "Never two challengers closer than this.", ["minutes", 60, 1, 525_600, true]),
  field("after_corrections", "Evolve after corrections",
    "Evolve by itself after this many new corrections; 0: only by hand.", ["corrections", 1, 0, 1_000_000, true]),
  field("every_s", "Evolve on a schedule",
    "Evolve by itself this often (at least hourly: 60 minutes or more); 0: no schedule.",
    ["minutes", 60, 0, 525_600, true]),
]; // prettier-ignore

export type Draft = Record<NumberKey, string> & { auto_promote: boolean };

const shown = (value: number, scale: number) => String(Math.round((value / scale) * 1e6) / 1e6);

/** The form's starting values: the policy in the form's units. */
export function draftOf(policy: Policy): Draft {
  const draft = { auto_promote: Boolean(policy.auto_promote) } as Draft;
  for (const f of POLICY_FIELDS) draft[f.key] = shown(Number(policy[f.key]), f.scale);
  return draft;
}

export type FieldErrors = Partial<Record<PolicyKey | "form", string>>;

/** What to send: only the values that changed, in the API's units; or the fields whose value is no number
 * the API could take (said beside them, nothing sent). */
export function policyBody(
  draft: Draft,
  policy: Policy,
): { body: Partial<Policy>; errors: FieldErrors } {
  const body: Partial<Policy> = {};
  const errors: FieldErrors = {};
  for (const f of POLICY_FIELDS) {
    const text = draft[f.key].trim();
    const value = Number(text);
    if (text === "" || !Number.isFinite(value)) errors[f.key] = "a number, please";
    else if (f.integer && !Number.isInteger(value)) errors[f.key] = "a whole number, please";
    else if (value < f.min || value > f.max) errors[f.key] = `between ${f.min} and ${f.max} ${f.unit}`;
    else {
      const sent = Math.round(value * f.scale * 1e6) / 1e6;
      if (sent !== Number(policy[f.key])) body[f.key] = sent;
    }
  }
  if (draft.auto_promote !== Boolean(policy.auto_promote)) body.auto_promote = draft.auto_promote;
  return { body, errors };
}

/** A 400's field errors by field (the API names the policy's keys), anything else under "form". */
export function errorsOf(error: Error): FieldErrors {
  const errors: FieldErrors = {};
  const known = new Set<string>([...POLICY_FIELDS.map((f) => f.key), "auto_promote"]);
  if (error instanceof ApiError && error.body.errors) {
    for (const [key, messages] of Object.entries(error.body.errors)) {
      const k = (known.has(key) ? key : "form") as PolicyKey | "form";
      errors[k] = [errors[k], ...messages].filter(Boolean).join("; ");
    }
  }
  if (Object.keys(errors).length === 0) errors.form = error.message;
  return errors;
}

/** What the values imply before any challenger can be judged, in one sentence. */
export function policyImplication(policy: Policy): string {
  const needed = Number(policy.min_tickets);
  const every = Math.max(1, Number(policy.slice_every));
  const tickets = `${needed} slice ${needed === 1 ? "ticket" : "tickets"}`;
  return (
    `A challenger is judged on at least ${tickets}; one reviewed ticket in ${every} joins the slice, ` +
    `so about ${needed * every} reviews (confirmed or corrected in Review) before one can be judged.`
  );
}

/** A value as the read-only list shows it: "100 tickets", "2 points", "60 minutes". */
export function valueText(f: NumberField, policy: Policy): string {
  return `${shown(Number(policy[f.key]), f.scale)} ${f.unit}`;
}

export const savePolicy = (deploymentId: number, body: Partial<Policy>) =>
  api<Policy>(`deployments/${deploymentId}/evolution/`, {
    method: "POST",
    body: JSON.stringify(body),
  });
