import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { feedbackQueries } from "../feedback/queries";
import type { Item, Queue } from "../feedback/types";
import { AnnotatePage } from "./AnnotatePage";

const SNAPSHOT = { task: "Can I renew Dune?", answer: "renew_loan", steps: [] };

/** The page with one queue of `kind` whose one item of `itemKind` is the annotator's, from the cache. */
function page(kind: Queue["kind"], itemKind: string): string {
  const client = new QueryClient();
  const queue = { id: 1, project: 1, name: "q", kind, guidelines: "", tags: [], my_progress: { assigned: 1, done: 0 } };
  const item = { id: 7, kind: itemKind, snapshot: SNAPSHOT, snapshot_b: itemKind === "pair" ? SNAPSHOT : null };
  client.setQueryData(feedbackQueries.queues().queryKey, { results: [queue as unknown as Queue] } as never);
  client.setQueryData(feedbackQueries.myItems(1).queryKey, { results: [item as unknown as Item] } as never);
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <AnnotatePage />
    </QueryClientProvider>,
  );
}

const skips = (html: string) => html.split("Skip for now").length - 1;

describe("AnnotatePage", () => {
  it.each([
    ["rating", "episode"],
    ["rating", "step"],
    ["pairwise", "pair"],
    ["intents", "row"],
  ] as const)("a %s queue's %s item has one Skip for now, not two", (kind, itemKind) => {
    const html = page(kind, itemKind);
    expect(html).toContain("Can I renew Dune?");
    expect(skips(html)).toBe(1);
  });
});
