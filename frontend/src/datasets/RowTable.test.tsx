import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RowTable } from "./RowTable";
import type { DatasetRow } from "./types";

const row = (over: Partial<DatasetRow>): DatasetRow => ({
  id: 1, index: 0, line: null, text: "thanks!", intents: [], owner: "", reference_reply: "", metadata: {},
  split: "train", provenance: "uploaded", source_ref: "", by: null, ...over,
});

describe("RowTable", () => {
  it("tells a row annotators called out of scope from one nobody labelled", () => {
    const html = renderToStaticMarkup(
      <RowTable rows={[row({ id: 1 }), row({ id: 2, provenance: "annotated", metadata: { out_of_scope: true } })]} />,
    );
    expect(html.match(/unlabelled|out of scope/g)).toEqual(["unlabelled", "out of scope"]);
  });
  it("names an annotated row's origin as the origin filter does, with who labelled it", () => {
    const html = renderToStaticMarkup(<RowTable rows={[row({ provenance: "annotated", by: "ann" })]} />);
    expect(html.replace(/<[^>]+>/g, "")).toContain("annotated by ann");
  });
  it("shows a corrected row's owner and better reply", () => {
    const html = renderToStaticMarkup(<RowTable rows={[row({ intents: ["damaged_item"], owner: "logistics", reference_reply: "Sorry!" })]} />);
    expect(html).toContain("owner: logistics");
    expect(html).toContain("reply: Sorry!");
  });
});
