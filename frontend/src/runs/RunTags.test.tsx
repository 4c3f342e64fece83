import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RunTags, mayTagRuns } from "./RunTags";
import type { Me } from "./types";

const member = (role: string): Me => ({ id: 1, username: "u", is_staff: false, memberships: [{ project: 7, role } as Me["memberships"][number]] });

const render = (canEdit: boolean) =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <RunTags runId={3} tags={["baseline"]} canEdit={canEdit} />
    </QueryClientProvider>,
  );

describe("a run's tags", () => {
  it("are edited by the run's product managers and admins only, as the runs API allows", () => {
    expect(mayTagRuns(member("product_manager"), 7)).toBe(true);
    expect(mayTagRuns(member("admin"), 7)).toBe(true);
    expect(mayTagRuns(member("operator"), 7)).toBe(false);
    expect(mayTagRuns(member("annotator"), 7)).toBe(false);
    expect(mayTagRuns(member("admin"), 8)).toBe(false); // another project
    expect(mayTagRuns(null, 7)).toBe(false);
  });

  it("offer no edit control to whoever may not edit them, and still show the chips", () => {
    expect(render(true)).toContain("Edit tags");
    const readOnly = render(false);
    expect(readOnly).toContain("baseline");
    expect(readOnly).not.toContain("Edit tags");
  });
});
