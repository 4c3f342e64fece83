import { describe, expect, it } from "vitest";
import { ROLES } from "./membersApi";

describe("the roles as the Members page describes them", () => {
  it("says what an annotator does: labels tickets' intents in the annotation queue and rates replies", () => {
    const annotator = ROLES.find((r) => r.value === "annotator")!.does;
    expect(annotator).not.toMatch(/feedback only/);
    expect(annotator).toMatch(/intents/);
    expect(annotator).toMatch(/annotation queue/);
    expect(annotator).toMatch(/rates replies/);
  });
});
