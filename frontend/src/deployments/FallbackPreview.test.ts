import { describe, expect, it } from "vitest";
import { percent } from "./FallbackPreview";

describe("fallback preview", () => {
  it("shows shares as percentages with one decimal", () => {
    expect(percent(0)).toBe("0.0 %");
    expect(percent(0.0416)).toBe("4.2 %");
    expect(percent(1)).toBe("100.0 %");
  });
});
