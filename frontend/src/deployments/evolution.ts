/** The evolution of a deployed team (mase_web/deployments/evolution*.py): its lineage as timeline rows. */
import { api, type Refine, type Schema } from "../api";

/** `serving.promotion.Comparison.as_dict()` against the parent, as far as the page reads it. */
export interface Comparison {
  tickets: number;
  champion: number;
  challenger: number;
  gain: number;
  interval: [number, number];
  p_value: number;
  promote: boolean;
  reason: string;
}

/** The product dataset a generation's base tickets were read from (its latest version when evolved). */
export interface BaseDataset {
  dataset: number;
  dataset_name?: string;
  version_number: number;
  was_version_number: number;
  rows_added_since: number;
}

export interface GenerationData {
  tickets?: string;
  base_dataset?: BaseDataset;
  rows_added?: number;
  rows_total?: number;
  slice_tickets?: number;
  start?: string;
  trigger?: string;
}

export type Generation = Refine<
  Schema<"LineageGeneration">,
  { comparison: Partial<Comparison>; data: GenerationData }
>;
export type Lineage = Refine<
  Schema<"Lineage">,
  { generations: Generation[]; policy: Record<string, number | boolean> }
>;

const post = { method: "POST", body: "{}" } as const;

/** A group of tickets the team could not place (`serving.intent_proposals.Proposal`). */
export interface IntentProposal {
  name: string;
  description: string;
  tickets: number;
  share: number;
  examples: string[];
  resembles: string | null;
  resemblance: number;
}

/** The proposed intents of a deployment and what they were grouped from: the tickets it could not place,
 * counted apart by kind (mase_web/deployments/proposals.py), of which the newest `tickets` were grouped. */
export interface Proposals {
  /** Turned away as outside what the team can do (a routing team's scope gate handed them to a person). */
  out_of_scope: number;
  /** Answered tickets an operator corrected to "none of these". */
  none_of_these: number;
  tickets: number;
  proposals: IntentProposal[];
}

export const evolutionApi = {
  proposals: (id: number) =>
    api<Proposals>(`deployments/${id}/intent-proposals/`),
  lineage: (id: number) => api<Lineage>(`deployments/${id}/generations/`),
  evolve: (id: number) => api<Generation>(`deployments/${id}/evolve/`, post),
  promote: (id: number, number: number) =>
    api<Lineage>(`deployments/${id}/generations/${number}/promote/`, post),
  rollback: (id: number) => api<Lineage>(`deployments/${id}/rollback/`, post),
  /** Put a proposed intent on the canvas of the deployment's design (a draft; nothing is trained). */
  accept: (id: number, body: AcceptBody) =>
    api<Accepted>(`deployments/${id}/intent-proposals/accept/`, {
      method: "POST",
      body: JSON.stringify(body),
    }),
};

export interface AcceptBody {
  name: string;
  description: string;
  owner: string;
}

export interface Accepted {
  workflow: number;
  designer: string;
  intents: string[];
}

/** A proposal's name as an intent name the catalogue takes (snake_case, at most 40 characters). */
export function intentName(proposed: string): string {
  const name = proposed
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^[^a-z]+|_+$/g, "")
    .slice(0, 40);
  return name || "new_intent";
}

export interface TimelineRow {
  number: number;
  /** Its training run: the run page streams its progress and phases. */
  run: number;
  status: Generation["status"];
  phase: Generation["phase"];
  /** "81.0 % (+3.0 vs 1)", or what is missing in words. */
  figure: string;
  added: string;
  reason: string;
  promoted: string;
  canPromote: boolean;
}

const percent = (share: number) => `${(100 * share).toFixed(1)} %`;
const points = (share: number) =>
  `${share >= 0 ? "+" : ""}${(100 * share).toFixed(1)}`;

/** Exact match on the slice against the parent, in words a timeline shows. */
export function figureText(g: Generation): string {
  const c = g.comparison;
  if (g.number === 1 || g.parent === null) return "the first team";
  if (g.phase === "training") return "training…";
  if (g.phase === "evaluating") return "comparing on the slice…";
  if (
    g.phase === "failed" ||
    typeof c.challenger !== "number" ||
    typeof c.gain !== "number"
  )
    return "not compared";
  if (c.tickets === 0) return "not judged: no evaluation tickets yet"; // 0.0 % of nothing is no figure
  return `${percent(c.challenger)} (${points(c.gain)} vs ${g.parent} on ${c.tickets ?? 0} tickets)`;
}

/** What a generation's `rows_added` counts: new labelled training rows of the deployment's dataset
 * (outside the slice), whether an operator's correction or an annotator's label brought them. */
const labelledWords = (n: number) =>
  `${n} new labelled ${n === 1 ? "ticket" : "tickets"} (corrections and annotations)`;

/** Where a generation's base came from: `; base: dataset "shop" v5 (was v3: 12 rows labelled or added
 * since)`, "" for a team not trained on a product dataset. */
export function baseWords(b?: BaseDataset): string {
  if (!b) return "";
  const n = b.rows_added_since;
  const since =
    b.was_version_number === b.version_number
      ? ""
      : ` (was v${b.was_version_number}: ${n} ${n === 1 ? "row" : "rows"} labelled or added since)`;
  return `; base: dataset "${b.dataset_name ?? b.dataset}" v${b.version_number}${since}`;
}

export function timelineRows(lineage: Lineage): TimelineRow[] {
  return [...lineage.generations]
    .sort((a, b) => b.number - a.number)
    .map((g) => ({
      number: g.number,
      run: g.run,
      status: g.status,
      phase: g.phase,
      figure: figureText(g),
      added:
        g.number === 1
          ? "–"
          : labelledWords(g.data.rows_added ?? 0) + baseWords(g.data.base_dataset),
      reason: g.reason,
      promoted: g.promoted_by
        ? `${g.promoted_by}`
        : g.promoted_at
          ? "the rule"
          : "",
      canPromote:
        g.phase === "ready" && g.status !== "champion" && Boolean(g.checkpoint),
    }));
}

/** Whether "Roll back" has somewhere to go: a generation that served before. */
export const canRollBack = (lineage: Lineage) =>
  lineage.generations.some((g) => g.status === "retired");

/** One line of a proposal: how often it occurs and what it lies close to. */
export function proposalSummary(p: IntentProposal): string {
  const near = p.resembles
    ? `, close to ${p.resembles} (${p.resemblance.toFixed(2)})`
    : "";
  return `${p.tickets} tickets, ${(100 * p.share).toFixed(0)} % of those unplaced${near}`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** What the proposals were grouped from, exactly as counted: "3 tickets the scope gate handed to a person as
 * outside the team's intents, and 1 an operator marked “none of these”" (a writing team turns requests
 * away instead of handing them over). */
export function unplacedWords(data: Omit<Proposals, "proposals">, routing: boolean): string {
  const outside = routing
    ? `${count(data.out_of_scope, "ticket")} the scope gate handed to a person as outside the team's intents`
    : `${count(data.out_of_scope, "request")} turned away as outside what the team can do`;
  const grouped = data.tickets < data.out_of_scope + data.none_of_these ? ` (the newest ${data.tickets} grouped)` : "";
  return `${outside}, and ${data.none_of_these} an operator marked “none of these”${grouped}`;
}

/** A point of the lineage's curve: exact match on the evaluation slice when the generation was judged. */
export interface CurvePoint {
  number: number;
  exactMatch: number;
  served: boolean;
}

/** Each judged generation's figure, and generation 1's from its first challenger's comparison. The slice
 * grows between comparisons, so a point is the figure when it was judged, not a re-measure. */
export function curvePoints(lineage: Lineage): CurvePoint[] {
  const served = (g: Generation) =>
    g.status === "champion" || g.status === "retired";
  const byNumber = [...lineage.generations].sort((a, b) => a.number - b.number);
  const points: CurvePoint[] = [];
  for (const g of byNumber) {
    const c = g.comparison;
    if (g.number === 1) {
      const first = byNumber.find(
        (h) => h.parent === 1 && typeof h.comparison.champion === "number" && h.comparison.tickets !== 0,
      );
      if (first)
        points.push({
          number: 1,
          exactMatch: first.comparison.champion as number,
          served: served(g),
        });
    } else if (typeof c.challenger === "number" && g.phase === "ready" && c.tickets !== 0) {
      points.push({
        number: g.number,
        exactMatch: c.challenger,
        served: served(g),
      });
    }
  }
  return points;
}

const hours = (s: number) =>
  s % 3600 === 0 ? `${s / 3600} h` : `${Math.round(s / 60)} min`;

/** How the deployment evolves, in one sentence (its policy's triggers and the promotion rule). */
export function policySummary(
  policy: Record<string, number | boolean>,
): string {
  const triggers = ["by hand"];
  const after = Number(policy.after_corrections ?? 0);
  const every = Number(policy.every_s ?? 0);
  if (after > 0) triggers.push(`after ${after} new ${after === 1 ? "correction" : "corrections"}`);
  if (every > 0) triggers.push(`every ${hours(every)}`);
  const interval = Number(policy.min_interval_s ?? 0);
  const margin = 100 * Number(policy.margin ?? 0);
  const tolerance = 100 * Number(policy.intent_tolerance ?? 0);
  const promote = policy.auto_promote
    ? "promoted by itself"
    : "promoted by a person";
  return (
    `Evolves ${triggers.join(", ")}, never within ${hours(interval)} of the last challenger; ` +
    `a challenger better by ${margin.toFixed(0)} points with no intent down more than ` +
    `${tolerance.toFixed(0)} is ${promote}.`
  );
}

/** Said beside Evolve while the slice is too small to judge a challenger (the promotion rule's
 * `min_tickets`): a challenger is judged once, when its run ends, so one trained now stays a candidate for
 * good (only a person can promote it); and since one reviewed ticket in `slice_every` joins the slice, it says
 * about how many more reviews fill it. Null once the slice is large enough. */
export function sliceShortfall(
  sliceTickets: number,
  policy: Record<string, number | boolean>,
): string | null {
  const needed = Number(policy.min_tickets ?? 0);
  if (sliceTickets >= needed) return null;
  const every = Math.max(1, Number(policy.slice_every ?? 1));
  const reviews = (needed - sliceTickets) * every;
  const joins = every === 1 ? "every reviewed ticket joins it" : `one reviewed ticket in ${every} joins it`;
  return (
    `The slice holds ${sliceTickets} of the ${needed} tickets a challenger needs to be judged. ` +
    "A challenger is judged once, when its training ends: one trained now stays a candidate that only a " +
    `person can promote. Fill the slice first: ${joins}, so about ${reviews} more tickets to confirm or ` +
    "correct in Review."
  );
}

/** Where the lineage downloads (the API's export, `lineage_export.py`). */
export const exportUrl = (id: number, as: "csv" | "json") =>
  `/api/deployments/${id}/generations/export/?as=${as}`;
