import { describe, expect, it } from "vitest";
import { runNameAfterSpec, specReference } from "./LaunchForm";

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

describe("what a launch sends for the team", () => {
  const spec = { name: "Customer service" };
  it("is an untouched template or published version by reference, so the server records where it came from", () => {
    expect(specReference({ template: "customer_service" }, false, spec)).toEqual({ template: "customer_service" });
    expect(specReference({ workflow: 9, version: 3 }, false, spec)).toEqual({ workflow: 9, version: 3 });
  });

  it("is the document once the spec was edited, or when it came from a file", () => {
    expect(specReference({ template: "customer_service" }, true, spec)).toEqual({ spec });
    expect(specReference({ file: "team.json" }, false, spec)).toEqual({ spec });
  });
});
