/** Display helpers of the deployment and review pages. */
import { ApiError } from "../api";
import type { Decision } from "./types";

export function percent(p: number | null | undefined): string {
  return typeof p === "number" && Number.isFinite(p) ? `${(p * 100).toFixed(1)}%` : "–";
}

/** Decisions grouped by step, in step order (agents in the order they came). */
export function bySteps<T extends Decision>(decisions: T[]): [number, T[]][] {
  const steps = new Map<number, T[]>();
  for (const d of decisions) steps.set(d.step, [...(steps.get(d.step) ?? []), d]);
  return [...steps.entries()].sort((a, b) => a[0] - b[0]);
}

/** One step's attention as a matrix: row i = how much agent i listened to each agent j. */
export function attentionMatrix(agents: string[], decisions: Decision[]): number[][] {
  return agents.map((listener) => {
    const received = decisions.find((d) => d.agent === listener)?.messages.received ?? [];
    return agents.map((speaker) => received.find((m) => m.from === speaker)?.weight ?? 0);
  });
}

/** Field errors of a 400 as one line each ("text: This field may not be blank."). */
export function errorLines(errors: Record<string, string[]> | undefined, fallback: string): string[] {
  if (!errors || Object.keys(errors).length === 0) return [fallback];
  return Object.entries(errors).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`));
}

/** A failed request's `errorLines` (its field errors, else its message); none without an error. */
export function apiErrorLines(error: Error | null): string[] {
  return error ? errorLines(error instanceof ApiError ? error.body.errors : undefined, error.message) : [];
}

/** "1 step", "3 steps". */
export function stepsText(n: number): string {
  return `${n} ${n === 1 ? "step" : "steps"}`;
}

/** What review's row offers to open: "Decisions (8) over 2 steps" — its agents' decisions, over the steps the
 * ticket console counts ("2 steps"). */
export function decisionsLabel(decisions: number, steps: number): string {
  return `Decisions (${decisions}) over ${stepsText(steps)}`;
}
