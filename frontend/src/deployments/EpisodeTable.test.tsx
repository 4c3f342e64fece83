import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Filters } from "./ReviewFilters";
import { EpisodeTable } from "./EpisodeTable";
import { decidedBy, episodeQuery, isIdle, outOfScopeWords, ticketWords } from "./episodeRows";
import type { EpisodeRow } from "./types";

const ROW = {
  id: 7,
  deployment: 1,
  deployment_name: "support",
  run: 3,
  request_id: "r-7",
  task_id: "",
  task_text: "My lamp arrived broken, I want my money back.",
  source: "browser",
  batch: null,
  status: "completed",
  reward: null,
  breaker_state: "closed",
  created_by: "op",
  created_at: "2026-01-02T03:04:05Z",
  answer: ["damaged_item"],
  sources: { model: 3 },
  reply: { text: "We are sorry: a refund of 30 EUR is on its way.", backend: "template" },
  decided_by: [
    { id: 11, step: 1, agent: "dispute_mediator", action: "handle_damage", source: "model", confidence: 0.61 },
    { id: 14, step: 2, agent: "quality_supervisor", action: "approve", source: "model", confidence: 0.9 },
  ],
  decided_source: "model",
  confidence: 0.61,
  decision_count: 8,
  step_count: 2,
  review_status: "unreviewed",
} as EpisodeRow;

const noop = () => {};

describe("EpisodeTable", () => {
  it("leads with the ticket and the reply, names who decided, and offers the steps on demand", () => {
    const html = renderToStaticMarkup(
      <EpisodeTable rows={[ROW]} expanded={null} onExpand={noop} onReviewed={noop} onOpenStep={noop} onStepReviewed={noop} />,
    );
    expect(html).toContain("My lamp arrived broken, I want my money back.");
    expect(html).toContain("We are sorry: a refund of 30 EUR is on its way.");
    expect(html).toContain("<b>Dispute mediator</b> handle damage");
    expect(html).toContain("61.0%");
    expect(html).toContain("Decisions (8) over 2 steps"); // the console says "2 steps" of the same ticket
    expect(html).not.toContain("pass");
    expect(html).toContain('data-testid="episode-review-7"');
  });

  it("shows in the row why an operator marked the ticket wrong", () => {
    const wrong = { ...ROW, review_status: "wrong", review_reason: "sent a refund for a parcel" } as EpisodeRow;
    const html = renderToStaticMarkup(
      <EpisodeTable rows={[wrong]} expanded={null} onExpand={noop} onReviewed={noop} onOpenStep={noop} onStepReviewed={noop} />,
    );
    expect(html).toMatch(/data-testid="episode-review-7"[\s\S]*sent a refund for a parcel/);
  });

  it("says what the customer did in a conversation turn without words: solved, or it did not", () => {
    const turn = (kind: "accepted" | "answer", id: number) => ({ ...ROW, id, task_text: "", event: { kind } }) as EpisodeRow;
    const html = renderToStaticMarkup(
      <EpisodeTable
        rows={[turn("accepted", 8), turn("answer", 9)]}
        expanded={null}
        onExpand={noop}
        onReviewed={noop}
        onOpenStep={noop}
        onStepReviewed={noop}
      />,
    );
    expect(html).toContain("(no words: the answer solved it)");
    expect(html).toContain("(no words: the answer did not solve it)");
    // a turn with words, and a ticket, read as written
    expect(ticketWords({ task_text: "it blinks orange", event: { kind: "answer" } })).toEqual({ text: "it blinks orange", spoken: true });
    expect(ticketWords({ task_text: ROW.task_text, event: null }).text).toBe(ROW.task_text);
  });

  it("says in words beside the ticket that the scope gate handed it to a person, the nearest intent and the numbers", () => {
    const gate = { handoff: true, nearest: "complaint", score: 0.41, floor: 0.52, in_scope_probability: 0.12, threshold: 0.95 };
    const handed = {
      ...ROW, id: 12, status: "out_of_scope", task_text: "what is the weather tomorrow?", decided_by: [], decided_source: null,
      confidence: null, decision_count: 0, step_count: 0, out_of_scope: gate,
    } as EpisodeRow; // prettier-ignore
    const html = renderToStaticMarkup(
      <EpisodeTable rows={[handed, ROW]} expanded={null} onExpand={noop} onReviewed={noop} onOpenStep={noop} onStepReviewed={noop} />,
    );
    expect(html).toContain("out of scope — handed to a person");
    expect(html).toContain("none: outside the team&#x27;s intents (nearest: complaint)");
    expect(html).toContain(
      "turned away: nearest intent &#x27;complaint&#x27; at 0.41 (floor 0.52); in-scope probability 0.12 (needs 0.95)",
    );
    expect(html.match(/data-testid="episode-out-of-scope"/g)).toHaveLength(1); // the answered ticket has none
    expect(html.match(/data-testid="scope-verdict"/g)).toHaveLength(1);
    const unknown = { score: null, floor: null, in_scope_probability: null, threshold: null };
    expect(outOfScopeWords({ out_of_scope: { handoff: true, nearest: null, ...unknown } })?.answer).toBe(
      "none: outside the team's intents",
    );
    // a writing team's request it cannot do: declined, not handed over
    expect(outOfScopeWords({ out_of_scope: { handoff: false, nearest: "heat_pumps", ...unknown } })).toEqual({
      badge: "out of scope — not played",
      answer: "none: outside what the team can do (nearest: heat pumps)",
    });
    expect(outOfScopeWords({ out_of_scope: null })).toBeNull();
  });

  it("says so when nobody decided or nothing matches", () => {
    const idle = { ...ROW, decided_by: [], decided_source: null, confidence: null, reply: null } as EpisodeRow;
    const html = renderToStaticMarkup(
      <EpisodeTable rows={[idle]} expanded={null} onExpand={noop} onReviewed={noop} onOpenStep={noop} onStepReviewed={noop} />,
    );
    expect(html).toContain("nobody decided");
    expect(html).toContain("no reply written");
    const none = renderToStaticMarkup(
      <EpisodeTable rows={[]} expanded={null} onExpand={noop} onReviewed={noop} onOpenStep={noop} onStepReviewed={noop} />,
    );
    expect(none).toContain("No tickets match.");
  });
});

describe("episode rows", () => {
  it("writes the deciders in step order, in words", () => {
    expect(decidedBy(ROW)).toBe("Dispute mediator: handle damage → Quality supervisor: approve");
    expect(decidedBy({ decided_by: [] })).toBe("nobody decided");
    expect(isIdle({ action_index: 0 })).toBe(true);
    expect(isIdle({ action_index: 2 })).toBe(false);
  });

  it("asks /api/episodes/ for the decision source under its own name", () => {
    const filters = { deployment: "2", agent: "", source: "fallback", breaker_state: "", review_status: "wrong", confidence_min: "",
      confidence_max: "", since: "", until: "", q: " parcel ", backend: "", fault: "" } as Filters; // prettier-ignore
    const query = episodeQuery(filters);
    expect(Object.fromEntries(query)).toEqual({ deployment: "2", decision_source: "fallback", review_status: "wrong", q: "parcel" });
  });
});
