import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { handedToPerson, type Reply } from "./reply";
import { ReplyView } from "./ReplyView";
import { type SentTicket, TicketHistory } from "./TicketHistory";
import { consoleLabels } from "./consoleLabels";
import { TicketAnswer } from "./TicketConsole";
import type { EpisodeSummary, TicketResult } from "./types";

const handoff: Reply = {
  text: "The Customer service team cannot help with this request. We have passed your message to a member of staff.",
  parts: [],
  backend: "template",
  model: "template",
  usage: { prompt_tokens: 0, completion_tokens: 0 },
  cost: 0,
  latency_ms: 0,
  faults: [{ agent: null, kind: "out_of_scope", detail: "nearest intent 'complaint' …: handed to a person" }],
  fallback: false,
  signature: "Customer service",
  handed_to_person: true,
};

describe("a ticket the scope gate handed to a person", () => {
  it("shows the words the customer reads (no agent wrote a part)", () => {
    const html = renderToStaticMarkup(<ReplyView reply={handoff} />);
    expect(html).toContain("passed your message to a member of staff");
    expect(html).toContain("Declined");
  });
  it("is told apart from an answered ticket", () => {
    expect(handedToPerson({ reply: handoff })).toBe(true);
    expect(handedToPerson({ reply: { ...handoff, handed_to_person: undefined } })).toBe(false);
    expect(handedToPerson({})).toBe(false);
  });
});

describe("TicketHistory", () => {
  const entries: SentTicket[] = [
    { episode: 9, text: "thanks!", intents: [], answeredBy: "person", steps: 0, at: "2026-12-06T07:28:39Z" },
  ];
  it("says a handed-over ticket went to a person, and links to review only for reviewers", () => {
    const pm = renderToStaticMarkup(<TicketHistory entries={entries} canReview={false} />);
    expect(pm).toContain("person");
    expect(pm).not.toContain("/review/");
    expect(renderToStaticMarkup(<TicketHistory entries={entries} canReview />)).toContain("/review/?episode=9");
  });
});

describe("TicketAnswer for a routing team with its scope gate on", () => {
  // what the server answers for "thanks!" (serving.scope): the gate's check names the nearest intent, no item
  const result = {
    request_id: "browser-1",
    status: "out_of_scope",
    steps: 0,
    decisions: [],
    sources: { model: 0, trial: 0, fallback: 0 },
    faults: [{ step: 0, kind: "out_of_scope", detail: "nearest intent 'complaint' …" }],
    latency_ms: 0,
    breaker: "closed",
    info: {},
    request: { in_scope: false, score: -0.11, floor: 0.06, nearest: "complaint", by: "example" },
    reply: handoff,
  } as unknown as TicketResult;
  it("renders (it threw on the missing item and blanked the page) and says a person takes it over", () => {
    const html = renderToStaticMarkup(
      <TicketAnswer episode={{ id: 9 } as EpisodeSummary} result={result} labels={consoleLabels("customer_service")} canReview={false} />,
    );
    expect(html).toContain("handed to a person");
    expect(html).toContain("none: outside the team&#x27;s intents (nearest: complaint)");
    expect(html).toContain("out of scope, not played");
    expect(html).toContain("passed your message to a member of staff");
    expect(html).not.toContain("scope-verdict"); // an episode without the gate's numbers: nothing more
  });
  it("shows the gate's numbers: the nearest intent against the floor, the in-scope probability against its threshold", () => {
    const out_of_scope = { handoff: true, nearest: "complaint", score: -0.11, floor: 0.06, in_scope_probability: 0.12, threshold: 0.95 };
    const episode = { id: 9, out_of_scope } as EpisodeSummary;
    const html = renderToStaticMarkup(
      <TicketAnswer episode={episode} result={result} labels={consoleLabels("customer_service")} canReview={false} />,
    );
    expect(html).toContain(
      "turned away: nearest intent &#x27;complaint&#x27; at -0.11 (floor 0.06); in-scope probability 0.12 (needs 0.95)",
    );
  });
  it("shows nothing of the kind for a ticket the team answered", () => {
    const answered = { ...result, status: "completed", steps: 2, faults: [], request: undefined, reply: undefined } as unknown as TicketResult;
    const html = renderToStaticMarkup(
      <TicketAnswer episode={{ id: 10, out_of_scope: null } as EpisodeSummary} result={answered} labels={consoleLabels("customer_service")} canReview={false} />,
    );
    expect(html).not.toContain("scope-verdict");
    expect(html).not.toContain("turned away");
  });
});
