import { describe, expect, it } from "vitest";

import { effectiveCatalogue, withNewIntent } from "./IntentCatalogue";
import type { Json } from "./types";

const SHIPPED = [
  { name: "order_tracking", description: "Where an order is." },
  { name: "complaint", description: "Unhappy with the service." },
];

describe("a spec's own intent catalogue", () => {
  it("is the environment's until the spec declares one", () => {
    expect(effectiveCatalogue(SHIPPED, {})).toBe(SHIPPED);
    expect(effectiveCatalogue(SHIPPED, { intents: [] })).toBe(SHIPPED);
  });

  it("keeps a shipped intent's description when it is named alone, and adds the new ones", () => {
    const params: Record<string, Json> = {
      intents: [{ name: "complaint" }, { name: "warranty_claim", description: "A warranty claim." }],
    };
    expect(effectiveCatalogue(SHIPPED, params)).toEqual([
      { name: "complaint", description: "Unhappy with the service." },
      { name: "warranty_claim", description: "A warranty claim." },
    ]);
  });

  it("adding an intent to the shipped catalogue lists the shipped ones by name first", () => {
    const next = withNewIntent(SHIPPED, undefined, { name: "warranty_claim", description: "A warranty claim." });
    expect(next.map((i) => i.name)).toEqual(["order_tracking", "complaint", "warranty_claim"]);
    expect(next[0]).toEqual({ name: "order_tracking" });
    const again = withNewIntent(SHIPPED, next as never, { name: "exchange", description: "Swap a size." });
    expect(again).toHaveLength(4);
  });
});
