import { describe, expect, it } from "vitest";
import { agreementBasis } from "./agreementText";

describe("agreementBasis", () => {
  it("says why there is no agreement yet rather than counting zero answers", () => {
    expect(agreementBasis(0, 0)).toBe(
      "no item has two answers yet: agreement is measured where two or more annotators answered",
    );
  });
  it("counts items and the answers in them", () => {
    expect(agreementBasis(1, 2)).toBe("over 1 item with two or more answers (2 answers in them)");
    expect(agreementBasis(4, 9)).toBe("over 4 items with two or more answers (9 answers in them)");
  });
});
