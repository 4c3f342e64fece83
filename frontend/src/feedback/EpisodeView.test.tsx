import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { EpisodeView } from "./EpisodeView";
import type { Snapshot } from "./types";
import { answerIntents, spoken } from "./words";

const SNAPSHOT: Snapshot = {
  task: "Where is my parcel? It is a week late.",
  answer: "order_tracking, delivery_delay",
  intents: [
    { name: "order_tracking", description: "Where an order or parcel is now." },
    { name: "delivery_delay", description: "A delivery that is late." },
  ],
  reply: { text: "Your parcel is on its way and arrives on Monday.", backend: "template", parts: [] },
  steps: [
    {
      step: 1,
      agent: "quality_supervisor",
      action: "track_order",
      source: "model",
      confidence: 0.42,
      messages: { received: [{ from: "shopping_guide", weight: 0.73 }] },
    },
  ],
};

describe("EpisodeView", () => {
  it("shows the ticket, the reply and the intents by name and meaning, never codes or attention figures", () => {
    const html = renderToStaticMarkup(<EpisodeView snapshot={SNAPSHOT} />);
    expect(html).toContain("Where is my parcel? It is a week late.");
    expect(html).toContain("Your parcel is on its way and arrives on Monday.");
    expect(html).toContain("Order tracking");
    expect(html).toContain("A delivery that is late.");
    expect(html).toContain("Quality supervisor");
    expect(html).toContain("Shopping guide → Quality supervisor");
    expect(html).toContain("track order");
    expect(html).not.toMatch(/order_tracking|delivery_delay|quality_supervisor|track_order|attention|0\.73/);
    expect(html).toContain('style="width:73%"'); // the attention weight is a bar
    expect(html.indexOf("Your parcel is on its way")).toBeLessThan(html.indexOf("Order tracking"));
  });

  it("writes an answer of bare codes as words, and keeps an answer in words whole", () => {
    expect(answerIntents("order_tracking, return_refund", undefined).map((i) => i.label)).toEqual(["Order tracking", "Return refund"]);
    expect(answerIntents("Hello, your refund is on its way", undefined)).toEqual([{ label: "Hello, your refund is on its way", description: "" }]);
    expect(answerIntents("", undefined)).toEqual([]);
    expect(spoken("dispute_mediator")).toBe("Dispute mediator");
  });
});

describe("a decision an operator queued from review", () => {
  it("shows the operator's verdict and reason, which the queue's guidelines send the annotator to", () => {
    const queued: Snapshot = { ...SNAPSHOT, meta: { step: 1, review: { status: "wrong", reason: "invents the due date" } } };
    const html = renderToStaticMarkup(<EpisodeView snapshot={queued} />);
    expect(html).toContain("The operator&#x27;s review");
    expect(html).toContain("marked wrong</b>: invents the due date");
    expect(renderToStaticMarkup(<EpisodeView snapshot={SNAPSHOT} />)).not.toContain("operator-review");
  });
});
