import { describe, expect, it } from "vitest";
import { holdsClue } from "./AgentClue";
import { declaredIn } from "./declaredOptions";

describe("an informant's clue kind", () => {
  it("offers the kinds the library declares", () => {
    expect(declaredIn("AgentSpec", "clue").choices).toEqual(["bit", "range"]);
  });

  it("is asked of number guessing's informants only", () => {
    const informant = { id: "parity", role: "informant", prompt: "p" };
    expect(holdsClue("number_guess", informant)).toBe(true);
    expect(holdsClue("number_guess", { ...informant, role: "guesser" })).toBe(false);
    expect(holdsClue("customer_service", informant)).toBe(false);
    expect(holdsClue(null, informant)).toBe(false);
  });
});
