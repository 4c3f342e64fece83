import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ScopeGateControl, scopeGateText } from "./ScopeGateControl";
import type { DeploymentSummary } from "./types";

const deployment = (scope_gate: boolean) =>
  ({ id: 4, project: 1, scope_gate, routing: true }) as DeploymentSummary;

const render = (on: boolean, canEdit: boolean) =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <ScopeGateControl deployment={deployment(on)} canEdit={canEdit} />
    </QueryClientProvider>,
  );

describe("ScopeGateControl", () => {
  it("says in words what happens to a ticket outside the catalogue", () => {
    expect(scopeGateText(true)).toMatch(/^On: .*person will take it over/);
    expect(scopeGateText(false)).toMatch(/^Off: .*even one that asks for something else$/);
  });

  it("offers the switch, checked as stored, to those who deploy, and only the state to others", () => {
    expect(render(true, true)).toMatch(/<input[^>]*type="checkbox"[^>]*checked=""/);
    expect(render(false, true)).not.toMatch(/checked=""/);
    const shown = render(true, false);
    expect(shown).toContain("On: a ticket outside");
    expect(shown).not.toContain("<input");
  });
});
