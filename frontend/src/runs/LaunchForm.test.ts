import { describe, expect, it } from "vitest";
import { runNameAfterSpec } from "./LaunchForm";

const spec = (name: string) => JSON.stringify({ name, agents: [] });

describe("the launch form's run name", () => {
  it("is the first chosen spec's name", () => {
    expect(runNameAfterSpec("", "", spec("Number guessing"))).toBe("Number guessing");
  });

  it("follows the spec when another template is chosen, while the name is still the one taken from a spec", () => {
    expect(runNameAfterSpec("Number guessing", "Number guessing", spec("Customer service"))).toBe("Customer service");
  });

  it("keeps a name the user typed", () => {
    expect(runNameAfterSpec("CS small", "Number guessing", spec("Customer service"))).toBe("CS small");
  });

  it("stays as it is when the text is not JSON or names nothing", () => {
    expect(runNameAfterSpec("Number guessing", "Number guessing", "{not json")).toBe("Number guessing");
    expect(runNameAfterSpec("", "", JSON.stringify({ agents: [] }))).toBe("");
  });
});
