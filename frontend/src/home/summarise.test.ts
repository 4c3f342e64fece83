import { describe, expect, it } from "vitest";
import { summarise } from "./TemplateStart";

describe("summarise", () => {
  it("keeps whole sentences only", () => {
    const long = `First sentence here. ${"Second sentence is much longer than the budget allows. ".repeat(5)}`;
    const short = summarise(long);
    expect(short.length).toBeLessThanOrEqual(200);
    expect(short.startsWith("First sentence here. Second")).toBe(true);
    expect(short.endsWith("allows.")).toBe(true);
    expect(summarise("One. Two.")).toBe("One. Two.");
    expect(summarise("No full stop at all")).toBe("No full stop at all");
  });
  it("keeps a first sentence even when it is long", () => {
    const first = `${"word ".repeat(60)}end.`;
    expect(summarise(`${first} Next.`)).toBe(first);
  });
});
