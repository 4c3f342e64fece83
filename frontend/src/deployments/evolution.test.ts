import { describe, expect, it } from "vitest";
import {
  canRollBack,
  curvePoints,
  intentName,
  policySummary,
  proposalSummary,
  figureText,
  sliceShortfall,
  timelineRows,
  unplacedWords,
  type Generation,
  type Lineage,
} from "./evolution";

function generation(
  number: number,
  fields: Partial<Generation> = {},
): Generation {
  return {
    number,
    status: "candidate",
    phase: "ready",
    run: 10 + number,
    run_state: "succeeded",
    checkpoint: "checkpoints/mappo/last",
    parent: number > 1 ? number - 1 : null,
    comparison: {},
    data: {},
    reason: "",
    created_by: "pm",
    created_at: "2026-12-05T05:00:00Z",
    promoted_by: null,
    promoted_at: null,
    ...fields,
  } as Generation;
}

const lineage = (generations: Generation[]): Lineage =>
  ({ generations, policy: {}, slice_tickets: 120 }) as Lineage;

describe("evolution timeline", () => {
  it("shows exact match on the slice against the parent", () => {
    const g = generation(2, {
      comparison: { challenger: 0.81, gain: 0.03, tickets: 120 },
    });
    expect(figureText(g)).toBe("81.0 % (+3.0 vs 1 on 120 tickets)");
    expect(
      figureText(
        generation(3, {
          comparison: { challenger: 0.7, gain: -0.05, tickets: 100 },
        }),
      ),
    ).toContain("-5.0 vs 2");
  });

  it("says where a generation is before it has figures", () => {
    expect(figureText(generation(1, { status: "champion" }))).toBe(
      "the first team",
    );
    expect(figureText(generation(2, { phase: "training" }))).toBe("training…");
    expect(figureText(generation(2, { phase: "failed" }))).toBe("not compared");
  });

  it("gives no figure and no curve point for a comparison on zero tickets", () => {
    const unjudged = generation(2, { comparison: { challenger: 0, champion: 0, gain: 0, tickets: 0 } });
    expect(figureText(unjudged)).toBe("not judged: no evaluation tickets yet");
    expect(curvePoints(lineage([generation(1, { status: "champion" }), unjudged]))).toEqual([]);
  });

  it("lists the newest first and offers promotion only to a compared non-champion", () => {
    const rows = timelineRows(
      lineage([
        generation(1, {
          status: "champion",
          promoted_by: "pm",
          promoted_at: "x",
        }),
        generation(2, { data: { rows_added: 40 } }),
        generation(3, { phase: "training", checkpoint: "", data: { rows_added: 1 } }),
      ]),
    );
    expect(rows[0].added).toBe("1 new labelled ticket (corrections and annotations)");
    expect(rows.map((r) => r.number)).toEqual([3, 2, 1]);
    expect(rows.map((r) => r.canPromote)).toEqual([false, true, false]);
    // the count is every new labelled training row of the deployment's dataset, annotated ones included
    expect(rows[1].added).toBe("40 new labelled tickets (corrections and annotations)");
    expect(rows[2].promoted).toBe("pm");
  });

  it("says which dataset version a generation's base was read from and what was labelled since", () => {
    const base = { dataset: 4, dataset_name: "shop", version_number: 5, was_version_number: 3, rows_added_since: 12 };
    const again = { ...base, was_version_number: 5, rows_added_since: 0 };
    const rows = timelineRows(
      lineage([
        generation(1, { status: "champion" }),
        generation(2, { data: { rows_added: 2, base_dataset: base } }),
        generation(3, { data: { rows_added: 0, base_dataset: again } }),
      ]),
    );
    expect(rows[1].added).toBe(
      '2 new labelled tickets (corrections and annotations); base: dataset "shop" v5 (was v3: 12 rows labelled or added since)',
    );
    expect(rows[0].added).toBe('0 new labelled tickets (corrections and annotations); base: dataset "shop" v5');
  });

  it("rolls back only where an earlier generation served", () => {
    expect(canRollBack(lineage([generation(1, { status: "champion" })]))).toBe(
      false,
    );
    expect(
      canRollBack(
        lineage([
          generation(1, { status: "retired" }),
          generation(2, { status: "champion" }),
        ]),
      ),
    ).toBe(true);
  });
});

describe("intent proposals", () => {
  it("says how often a group occurs and which intent it resembles", () => {
    const p = {
      name: "gift_card",
      description: "",
      tickets: 12,
      share: 0.4,
      examples: [],
      resembles: null,
      resemblance: 0,
    };
    expect(proposalSummary(p)).toBe("12 tickets, 40 % of those unplaced");
    expect(
      proposalSummary({ ...p, resembles: "return_refund", resemblance: 0.81 }),
    ).toContain("close to return_refund (0.81)");
  });
});

describe("evolution curve and policy", () => {
  it("plots generation 1 from its challenger's comparison and every judged generation", () => {
    const data = lineage([
      generation(1, { status: "retired" }),
      generation(2, {
        status: "champion",
        comparison: { champion: 0.7, challenger: 0.78 },
      }),
      generation(3, { phase: "training" }),
      generation(4, {
        status: "rejected",
        comparison: { champion: 0.78, challenger: 0.74 },
      }),
    ]);
    expect(curvePoints(data)).toEqual([
      { number: 1, exactMatch: 0.7, served: true },
      { number: 2, exactMatch: 0.78, served: true },
      { number: 4, exactMatch: 0.74, served: false },
    ]);
  });

  it("says the triggers and the promotion rule in one sentence", () => {
    expect(
      policySummary({
        after_corrections: 20,
        every_s: 86400,
        min_interval_s: 3600,
        margin: 0.02,
        intent_tolerance: 0.02,
        auto_promote: false,
      }),
    ).toBe(
      "Evolves by hand, after 20 new corrections, every 24 h, never within 1 h of the last challenger; " +
        "a challenger better by 2 points with no intent down more than 2 is promoted by a person.",
    );
  });

  it("says one correction in the singular", () => {
    expect(policySummary({ after_corrections: 1, min_interval_s: 3600 })).toContain("after 1 new correction,");
  });
});

describe("accepting a proposal", () => {
  it("turns a proposal's words into an intent name the catalogue takes", () => {
    expect(intentName("charged twice / refund")).toBe("charged_twice_refund");
    expect(intentName("2nd Hand Items")).toBe("nd_hand_items");
    expect(intentName("???")).toBe("new_intent");
  });
});

describe("a slice too small to judge", () => {
  it("says how many tickets the slice holds of those needed, and nothing once enough", () => {
    expect(sliceShortfall(0, { min_tickets: 100 })).toBe(
      "The slice holds 0 of the 100 tickets a challenger needs to be judged. A challenger is judged once, " +
        "when its training ends: one trained now stays a candidate that only a person can promote. Fill the " +
        "slice first: every reviewed ticket joins it, so about 100 more tickets to confirm or correct in Review.",
    );
    // one reviewed ticket in five joins the slice: 98 slice tickets short is about 490 reviews, not 98
    expect(sliceShortfall(2, { min_tickets: 100, slice_every: 5 })).toContain(
      "one reviewed ticket in 5 joins it, so about 490 more tickets to confirm or correct in Review.",
    );
    expect(sliceShortfall(2, { min_tickets: 100, slice_every: 5 })).not.toContain("until operators");
    expect(sliceShortfall(100, { min_tickets: 100 })).toBeNull();
    expect(sliceShortfall(3, {})).toBeNull();
  });
});

describe("unplacedWords", () => {
  it("says exactly what the proposals were grouped from, each kind counted apart", () => {
    expect(unplacedWords({ out_of_scope: 3, none_of_these: 1, tickets: 4 }, true)).toBe(
      "3 tickets the scope gate handed to a person as outside the team's intents, and 1 an operator marked “none of these”",
    );
    expect(unplacedWords({ out_of_scope: 1, none_of_these: 0, tickets: 1 }, true)).toBe(
      "1 ticket the scope gate handed to a person as outside the team's intents, and 0 an operator marked “none of these”",
    );
    // a writing team turns a request away; it hands nothing to a person
    expect(unplacedWords({ out_of_scope: 2, none_of_these: 0, tickets: 2 }, false)).toBe(
      "2 requests turned away as outside what the team can do, and 0 an operator marked “none of these”",
    );
    // only the newest are grouped
    expect(unplacedWords({ out_of_scope: 450, none_of_these: 100, tickets: 500 }, true)).toContain("(the newest 500 grouped)");
  });
});
