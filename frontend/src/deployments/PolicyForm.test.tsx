import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { PolicyForm } from "./PolicyForm";
import { draftOf, errorsOf, policyBody, policyImplication, type Policy } from "./policyFields";

const defaults: Policy = {
  min_interval_s: 3600,
  after_corrections: 0,
  every_s: 0,
  auto_promote: true,
  slice_every: 5,
  correction_weight: 1,
  margin: 0.02,
  intent_tolerance: 0.02,
  min_tickets: 100,
  min_intent_tickets: 20,
};

const render = (canEdit: boolean) =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <PolicyForm deploymentId={3} policy={defaults} canEdit={canEdit} onSaved={() => {}} />
    </QueryClientProvider>,
  );

describe("the evolution policy form", () => {
  it("says what the values imply before a challenger can be judged", () => {
    expect(policyImplication(defaults)).toBe(
      "A challenger is judged on at least 100 slice tickets; one reviewed ticket in 5 joins the slice, so about " +
        "500 reviews (confirmed or corrected in Review) before one can be judged.",
    );
    expect(policyImplication({ ...defaults, min_tickets: 20, slice_every: 2 })).toContain("about 40 reviews");
  });

  it("shows values in minutes and points and sends only what changed, in the API's units", () => {
    const draft = draftOf(defaults);
    expect([draft.min_interval_s, draft.margin, draft.min_tickets]).toEqual(["60", "2", "100"]);
    expect(policyBody(draft, defaults)).toEqual({ body: {}, errors: {} });
    const changed = { ...draft, min_tickets: "30", margin: "7", min_interval_s: "90", auto_promote: false };
    expect(policyBody(changed, defaults)).toEqual({
      body: { min_tickets: 30, margin: 0.07, min_interval_s: 5400, auto_promote: false },
      errors: {},
    });
  });

  it("names the field whose value the API could not take, before sending", () => {
    const draft = { ...draftOf(defaults), slice_every: "2.5", min_tickets: "", margin: "80" };
    expect(policyBody(draft, defaults).errors).toEqual({
      slice_every: "a whole number, please",
      min_tickets: "a number, please",
      margin: "between 0 and 50 points",
    });
  });

  it("puts a 400's messages beside their fields and anything else under the form", () => {
    const frozen = new ApiError(400, {
      detail: "bad",
      errors: { slice_every: ["the evaluation slice is drawn already"], non_field_errors: ["odd"] },
    });
    expect(errorsOf(frozen)).toEqual({ slice_every: "the evaluation slice is drawn already", form: "odd" });
    expect(errorsOf(new ApiError(403, { detail: "only product managers" }))).toEqual({
      form: "only product managers",
    });
  });

  it("offers inputs to those who may change the policy and the values, read-only, to others", () => {
    const editable = render(true);
    expect(editable).toMatch(/<input type="number"[^>]*name="min_tickets" value="100"/);
    expect(editable).toContain("Save the policy");
    const readOnly = render(false);
    expect(readOnly).not.toContain("<input");
    expect(readOnly).toContain("100 tickets");
    expect(readOnly).toContain("one reviewed ticket in 5 joins the slice, so about 500 reviews");
  });
});
