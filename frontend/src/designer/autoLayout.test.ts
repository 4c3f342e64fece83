import { describe, expect, it } from "vitest";
import { ARC_DEPTH, NODE_HEIGHT, NODE_WIDTH, SKIP_CLEARANCE, autoLayout } from "./autoLayout";
import type { EdgeSpec } from "./types";

const dep = (source: string, target: string): EdgeSpec => ({ source, target, kind: "dependency" });
const comm = (source: string, target: string): EdgeSpec => ({ source, target, kind: "communication" });

describe("autoLayout", () => {
  it("keeps a column of two straight", () => {
    const layout = autoLayout(["a", "b", "c"], [dep("a", "c"), dep("b", "c"), comm("a", "b")]);
    expect(layout.a.x).toBe(layout.b.x);
  });

  it("bends a column of three into an arc: a link between its ends passes clear of the middle agent", () => {
    const layout = autoLayout(["a", "b", "c", "d"], [dep("a", "d"), dep("b", "d"), dep("c", "d"), comm("a", "c")]);
    const [top, middle, bottom] = ["a", "b", "c"].map((id) => layout[id]).sort((p, q) => p.y - q.y);
    expect(top.x).toBe(bottom.x);
    expect(middle.x - top.x).toBe(ARC_DEPTH);
    // the straight line between the ends' centres clears the middle agent's box
    expect(top.x + NODE_WIDTH / 2 + 40).toBeLessThan(middle.x);
    // the next column keeps its distance from the arc's middle
    expect(layout.d.x - (middle.x + NODE_WIDTH)).toBeGreaterThanOrEqual(90);
    expect(bottom.y - top.y).toBeGreaterThan(2 * NODE_HEIGHT);
  });

  it("moves an agent off a dependency that skips its column", () => {
    // the code-generation team: implementer → code_reviewer passes the tester's column
    const layout = autoLayout(
      ["architect", "implementer", "tester", "code_reviewer"],
      [dep("architect", "implementer"), dep("implementer", "tester"), dep("tester", "code_reviewer"), dep("implementer", "code_reviewer")],
    );
    const centreY = (id: string) => layout[id].y + NODE_HEIGHT / 2;
    const line = (centreY("implementer") + centreY("code_reviewer")) / 2;
    expect(layout.tester.x).toBeGreaterThan(layout.implementer.x);
    // above the line: the links back from the reviewer bend below it
    expect(line - centreY("tester")).toBeGreaterThanOrEqual(SKIP_CLEARANCE - 1);
  });

  it("bends a longer column deeper, a fan with its ends forward", () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const layout = autoLayout([...ids, "hub"], ids.map((id) => comm(id, "hub")));
    const xs = ids.map((id) => layout[id].x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(2 * ARC_DEPTH);
    // a fan bends round the agent it links into: its ends come forward, its middle stays back
    expect(layout.a.x).toBe(Math.max(...xs));
    expect(layout.f.x).toBe(Math.max(...xs));
  });
});
