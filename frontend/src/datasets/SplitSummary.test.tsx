import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SplitSummary } from "./SplitSummary";

describe("SplitSummary", () => {
  it("links each split that holds rows to its own JSONL export", () => {
    const summary = { seed: 0, counts: { train: 8, dev: 1, test: 0 }, by_provenance: { train: { uploaded: 8 }, dev: { uploaded: 1 } } };
    const html = renderToStaticMarkup(<SplitSummary summary={summary} version={7} />);
    expect(html.match(/href="[^"]+"/g)).toEqual([
      'href="/api/dataset-versions/7/export/?split=train"',
      'href="/api/dataset-versions/7/export/?split=dev"',
    ]);
  });
  it("says when a split is empty, and why", () => {
    const summary = { seed: 0, counts: { train: 10, dev: 1, test: 0 }, by_provenance: {} };
    const html = renderToStaticMarkup(<SplitSummary summary={summary} version={7} />);
    expect(html).toContain("test holds no row yet");
    const full = { seed: 0, counts: { train: 8, dev: 1, test: 1 }, by_provenance: {} };
    expect(renderToStaticMarkup(<SplitSummary summary={full} version={7} />)).not.toContain("holds no row");
  });
});
