import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { BatchPanel, exampleTicket } from "./BatchPanel";
import { deploymentQueries } from "./queries";
import type { Catalogue } from "./types";

const render = (catalogue?: Catalogue) => {
  const client = new QueryClient({ defaultOptions: { queries: { enabled: false } } });
  if (catalogue) client.setQueryData(deploymentQueries.catalogue(5).queryKey, catalogue);
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <BatchPanel deploymentId={5} live={{}} />
    </QueryClientProvider>,
  );
};

describe("BatchPanel", () => {
  it("builds the example ticket from the deployment's own first intent", () => {
    const catalogue = {
      intents: [
        { name: "warranty_claim", description: "an item broke" },
        { name: "cancel_subscription", description: "" },
      ],
      agents: [],
      example: null,
    } as Catalogue;
    const html = render(catalogue);
    expect(html).toContain("warranty_claim");
    expect(html).not.toContain("cancel_subscription");
    expect(html).not.toContain("order_tracking");
  });

  it("shows a generic example without intents while the catalogue loads", () => {
    const html = render();
    expect(html).not.toContain("order_tracking");
    expect(html).not.toContain("&quot;intents&quot;");
    expect(exampleTicket()).toBe(`{"id": "t-1", "text": "the customer's message"}`);
    expect(exampleTicket("refund")).toBe(`{"id": "t-1", "text": "the customer's message", "intents": ["refund"]}`);
  });
});
