import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RunHeader } from "./RunHeader";
import type { RunDetail } from "./types";

const run = (source: Record<string, unknown>): RunDetail =>
  ({
    id: 4, project: 1, name: "cs", kind: "training", device: "cpu", state: "queued", source, created_by: "pm",
    created_at: "2026-12-06T12:00:00Z", started_at: null, finished_at: null, worker: "", deliveries: 0,
    cancel_requested: false, error: "", metrics: {}, last_seq: null, tags: [], spec: {},
  }) as RunDetail;

/** The header's "Team" fact, as text. */
const team = (source: Record<string, unknown>) => {
  const html = renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <RunHeader run={run(source)} status="live" lastSeq={0} busy={false} onCancel={() => {}} onResume={() => {}} checkpointCount={0} workers={null} onMoveDevice={() => {}} canTag={false} />
    </QueryClientProvider>,
  );
  return /<dt>Team<\/dt><dd>(.*?)<\/dd>/.exec(html)?.[1].replace(/<[^>]+>/g, "");
};

describe("the run header's team", () => {
  it("names the gallery template a run was launched from", () => {
    const source = { kind: "template", template: "customer_service", template_name: "Customer service", overrides: { episodes: 32 } };
    expect(team(source)).toBe("Customer service (gallery template)");
  });

  it("still links a published workflow version, and says spec document for anything else", () => {
    expect(team({ kind: "workflow", workflow: 9, workflow_name: "Support v2", version: 3 })).toBe("Support v2 v3");
    expect(team({ kind: "spec" })).toBe("spec document");
  });
});
