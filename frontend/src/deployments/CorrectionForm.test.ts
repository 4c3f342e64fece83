import { describe, expect, it } from "vitest";
import { ownerChoices, ownersOf } from "./CorrectionForm";
import { correctedNote } from "./ReviewControl";
import type { Correction } from "./types";

describe("correction helpers", () => {
  const agents = [
    { id: "logistics", intents: ["order_tracking", "delivery_delay"], reviews: false },
    { id: "dispute_mediator", intents: ["return_refund", "damaged_item"], reviews: false },
    { id: "quality_supervisor", intents: [], reviews: true },
  ];

  it("offers as owners only the agents that may own intents, not a reviewer (the API refuses it)", () => {
    expect(ownerChoices(agents).map((a) => a.id)).toEqual(["logistics", "dispute_mediator"]);
  });

  it("names the agents that own the chosen intents now", () => {
    expect(ownersOf(["damaged_item"], agents)).toEqual(["dispute_mediator"]);
    expect(ownersOf(["delivery_delay", "damaged_item"], agents)).toEqual(["logistics", "dispute_mediator"]);
    expect(ownersOf(["warranty_claim"], agents)).toEqual([]);
  });

  it("says where the corrected ticket landed, or only that it was corrected", () => {
    const base = { id: 1, episode: 2, step: 3, intents: ["damaged_item"], owner: "", reply: "", reason: "", corrected_by: "op", created_at: "" };
    const landed: Correction = { ...base, dataset_row: { dataset: 4, dataset_name: "cs corrections", version: 9, version_number: 2, row: 17 } };
    expect(correctedNote(landed)).toBe('Corrected: the ticket joined dataset "cs corrections" (version 2).');
    expect(correctedNote({ ...base, dataset_row: {} })).toBe("Corrected.");
  });
});
