import { REVIEW_STATUSES } from "./reviewStatus";
import type { DeploymentSummary } from "./types";

export interface Filters {
  deployment: string;
  agent: string;
  source: string;
  breaker_state: string;
  review_status: string;
  confidence_min: string;
  confidence_max: string;
  since: string;
  until: string;
  q: string;
  backend: string;
  fault: string;
}

export const FILTER_KEYS: (keyof Filters)[] = [
  "deployment", "agent", "source", "breaker_state", "review_status", "confidence_min", "confidence_max", "since", "until", "q",
  "backend", "fault",
];

/** The reply writers a deployment can use (serving.generation.base.BACKENDS). */
export const BACKENDS = ["template", "local", "openai_compatible"];

/** Fault kinds of the team and of its reply writer (serving.breaker.FAULT_KINDS), and a request the team
 * cannot do (mase_web/deployments/review.py). */
export const FAULT_KINDS = [
  "non_finite", "backbone_error", "timeout", "step_limit",
  "generation_timeout", "generation_error", "empty_answer", "overlong_answer", "refusal", "garbage",
  "out_of_scope",
];

/** A fault kind in words where its name alone does not say it. */
export const FAULT_LABELS: Record<string, string> = { out_of_scope: "out of scope — turned away, not played" };

/** The filters as they are kept in the page's address: the typed values, unset ones left out. */
export function filterSearch(filters: Filters, keep: Record<string, string | null | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key].trim();
    if (value) search.set(key, value);
  }
  for (const [key, value] of Object.entries(keep)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** The filters read back from the page's address (unknown keys ignored, missing ones unset). */
export function filtersFrom(params: URLSearchParams): Filters {
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ""])) as unknown as Filters;
}

/** The filters as API query parameters (times from the browser's local time to ISO). */
export function filterQuery(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key].trim();
    if (!value) continue;
    query.set(key, key === "since" || key === "until" ? new Date(value).toISOString() : value);
  }
  return query;
}

interface Props {
  filters: Filters;
  deployments: DeploymentSummary[];
  agents: string[];
  onChange: (filters: Filters) => void;
}

/** Deployment, agent, source, breaker state, review status, reply backend, fault, confidence range, time range
 * and full-text search. */
export function ReviewFilters({ filters, deployments, agents, onChange }: Props) {
  const set = (key: keyof Filters) => (e: { target: { value: string } }) => onChange({ ...filters, [key]: e.target.value });
  return (
    <form className="review-filters" aria-label="Filter decisions" onSubmit={(e) => e.preventDefault()}>
      <label>
        Search
        <input type="search" value={filters.q} onChange={set("q")} placeholder="refund, keyword rule, logistics…" />
      </label>
      <label>
        Deployment
        <select value={filters.deployment} onChange={set("deployment")}>
          <option value="">all</option>
          {deployments.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name} (run {d.run})
            </option>
          ))}
        </select>
      </label>
      <label>
        Agent
        <select value={filters.agent} onChange={set("agent")}>
          <option value="">all</option>
          {agents.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </label>
      <label>
        Source
        <select value={filters.source} onChange={set("source")}>
          <option value="">all</option>
          <option>model</option>
          <option>trial</option>
          <option>fallback</option>
        </select>
      </label>
      <label>
        Breaker
        <select value={filters.breaker_state} onChange={set("breaker_state")}>
          <option value="">any</option>
          <option value="closed">closed</option>
          <option value="open">open</option>
          <option value="half_open">half-open</option>
        </select>
      </label>
      <label>
        Review
        <select value={filters.review_status} onChange={set("review_status")} aria-label="Review status">
          <option value="">any</option>
          {REVIEW_STATUSES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Reply backend
        <select value={filters.backend} onChange={set("backend")} aria-label="Reply backend">
          <option value="">all</option>
          {BACKENDS.map((b) => (
            <option key={b}>{b}</option>
          ))}
        </select>
      </label>
      <label>
        Fault
        <select value={filters.fault} onChange={set("fault")} aria-label="Fault">
          <option value="">all</option>
          <option value="any">any fault</option>
          <option value="none">no fault</option>
          {FAULT_KINDS.map((k) => (
            <option key={k} value={k}>
              {FAULT_LABELS[k] ?? k}
            </option>
          ))}
        </select>
      </label>
      <label>
        Confidence from
        <input type="number" min={0} max={1} step={0.05} value={filters.confidence_min} onChange={set("confidence_min")} />
      </label>
      <label>
        to
        <input type="number" min={0} max={1} step={0.05} value={filters.confidence_max} onChange={set("confidence_max")} />
      </label>
      <label>
        Since
        <input type="datetime-local" value={filters.since} onChange={set("since")} />
      </label>
      <label>
        Until
        <input type="datetime-local" value={filters.until} onChange={set("until")} />
      </label>
    </form>
  );
}
