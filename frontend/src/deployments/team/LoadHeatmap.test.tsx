import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LoadHeatmap } from "./LoadHeatmap";
import type { LoadColumn } from "./teamLoad";

const team = (n: number) => Array.from({ length: n }, (_, i) => `agent_${i}`);
const column = (agents: string[]): LoadColumn => ({
  key: "1",
  task: 1,
  kind: "presales",
  bidders: 1,
  bids: { [agents[0]]: 3 },
  winner: agents[0],
  backlog: agents.map(() => 1),
  online: agents.map(() => true),
});

describe("LoadHeatmap", () => {
  it("gives a team of up to 30 agents rows tall enough to read every name", () => {
    const agents = team(10);
    const html = renderToStaticMarkup(<LoadHeatmap columns={[column(agents)]} agents={agents} />);
    expect(html).toContain(`height="${10 * 16 + 4}"`);
    expect(html.match(/font-size="12"/g)).toHaveLength(10);
  });

  it("keeps a hundred agents on thin rows, naming every fourth", () => {
    const agents = team(100);
    const html = renderToStaticMarkup(<LoadHeatmap columns={[column(agents)]} agents={agents} />);
    expect(html).toContain(`height="${100 * 8 + 4}"`);
    expect(html.match(/font-size="9"/g)).toHaveLength(25);
  });
});
