import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import {
  StyleExploreControl,
  asPercent,
  exploreText,
} from "./StyleExploreControl";
import type { DeploymentSummary } from "./types";

const deployment = (style_explore: number) =>
  ({ id: 4, project: 1, style_explore }) as DeploymentSummary;

const render = (share: number, canEdit: boolean) =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <StyleExploreControl deployment={deployment(share)} canEdit={canEdit} />
    </QueryClientProvider>,
  );

describe("StyleExploreControl", () => {
  it("says the share in percent, or that exploration is off", () => {
    expect(asPercent(0.15)).toBe(15);
    expect(asPercent(0.125)).toBe(12.5);
    expect(exploreText(0.2)).toMatch(/^20% of replies .* marked explored$/);
    expect(exploreText(0)).toMatch(/^Off/);
  });

  it("offers the field to those who deploy, and only shows the share to others", () => {
    const editable = render(0.1, true);
    expect(editable).toContain("10% of replies");
    expect(editable).toMatch(/<input[^>]*type="number"[^>]*value="10"/);
    const shown = render(0.1, false);
    expect(shown).toContain("10% of replies");
    expect(shown).not.toContain("<input");
  });
});
