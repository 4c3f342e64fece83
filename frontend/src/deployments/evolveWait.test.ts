import { describe, expect, it } from "vitest";
import { evolveWaitText } from "./evolveWait";

describe("Evolve within the minimum interval", () => {
  const now = new Date(2026, 11, 6, 9, 10, 0);
  it("says when the next evolution is possible, rounded up to the minute", () => {
    const after = new Date(2026, 11, 6, 10, 6, 46).toISOString();
    expect(evolveWaitText(after, now)).toBe("next evolution possible at 10:07");
    expect(evolveWaitText(new Date(2026, 11, 6, 10, 7, 0).toISOString(), now)).toBe(
      "next evolution possible at 10:07",
    );
  });

  it("names the day when it is not today", () => {
    expect(evolveWaitText(new Date(2026, 11, 7, 8, 0).toISOString(), now)).toBe(
      "next evolution possible at 2026-12-07 08:00",
    );
  });

  it("says nothing once the interval has passed or when the API gives no time", () => {
    expect(evolveWaitText(new Date(2026, 11, 6, 9, 9).toISOString(), now)).toBeNull();
    expect(evolveWaitText(null, now)).toBeNull();
  });
});
