import { describe, expect, it } from "vitest";
import { reverseLink, twoWayPartners } from "./linkPairs";
import type { EdgeSpec } from "./types";

const dep = (source: string, target: string): EdgeSpec => ({ source, target, kind: "dependency" });
const comm = (source: string, target: string): EdgeSpec => ({ source, target, kind: "communication" });

describe("twoWayPartners", () => {
  it("pairs communication links in both directions between the same agents, each with the other", () => {
    const edges = [comm("a", "b"), dep("a", "b"), comm("b", "c"), comm("b", "a")];
    expect([...twoWayPartners(edges)]).toEqual([
      [0, 3],
      [3, 0],
    ]);
    expect(reverseLink(edges, 3)).toBe(0);
    expect(reverseLink(edges, 2)).toBeUndefined();
  });

  it("never pairs a dependency, and pairs a link with no more than one partner", () => {
    expect(twoWayPartners([dep("a", "b"), dep("b", "a"), comm("b", "a")]).size).toBe(0);
    // a duplicate a → b stays on its own; the single b → a pairs with the first a → b
    const partners = twoWayPartners([comm("a", "b"), comm("a", "b"), comm("b", "a")]);
    expect([...partners]).toEqual([
      [0, 2],
      [2, 0],
    ]);
  });

  it("treats a link without a kind as a communication link", () => {
    expect(twoWayPartners([{ source: "a", target: "b" }, comm("b", "a")]).get(0)).toBe(1);
  });

  it("keeps a pair apart when its two directions are drawn differently", () => {
    const edges = [comm("a", "b"), comm("b", "a")];
    expect(twoWayPartners(edges, (x, y) => x + y !== 1).size).toBe(0);
  });
});
