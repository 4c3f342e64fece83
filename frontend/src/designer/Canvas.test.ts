import { describe, expect, it } from "vitest";
import { FIT_VIEW } from "./Canvas";

describe("fitting the canvas to its agents", () => {
  it("never zooms past natural size, so a new canvas with one agent leaves room to drop the next", () => {
    // React Flow's own limit is 2x: one agent on a blank canvas was drawn 380 px wide
    expect(FIT_VIEW.maxZoom).toBeLessThanOrEqual(1);
  });
});
