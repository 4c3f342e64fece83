import { describe, expect, it } from "vitest";

import { reportsNoAttention } from "./attentionReports";

// As the catalogue serves them: mappo's agents talk (and its trainer reports attention), ippo's act alone.
const algorithms = [
  { name: "reinforce_comm" as const, messages: true },
  { name: "mappo" as const, messages: true },
  { name: "ippo" as const, messages: false },
];

describe("reportsNoAttention", () => {
  it("is true only for an algorithm the catalogue says sends no messages", () => {
    expect(reportsNoAttention("ippo", algorithms)).toBe(true);
    expect(reportsNoAttention("mappo", algorithms)).toBe(false);
    expect(reportsNoAttention("reinforce_comm", algorithms)).toBe(false);
  });

  it("follows the catalogue, not the algorithm's name", () => {
    expect(reportsNoAttention("mappo", [{ name: "mappo", messages: false }])).toBe(true);
    expect(reportsNoAttention("ippo", [{ name: "ippo", messages: true }])).toBe(false);
  });

  it("keeps waiting while anything is unknown", () => {
    expect(reportsNoAttention(null, algorithms)).toBe(false); // the run has not started
    expect(reportsNoAttention("ippo", null)).toBe(false); // the catalogue is still loading
    expect(reportsNoAttention("new_trainer", algorithms)).toBe(false); // not in the catalogue
  });
});
