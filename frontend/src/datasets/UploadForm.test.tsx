import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Membership } from "../runs/types";
import { UploadForm } from "./UploadForm";

const projects = [
  { project: 1, project_name: "support", role: "admin" },
  { project: 2, project_name: "billing", role: "product_manager" },
] as Membership[];

const render = (props: Parameters<typeof UploadForm>[0]) =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <UploadForm {...props} />
    </QueryClientProvider>,
  );

describe("UploadForm", () => {
  it("asks for the project and the name first, as stacked labelled fields, before the file format hint", () => {
    const html = render({ projects });
    const name = html.indexOf(">Name<");
    expect(name).toBeGreaterThan(html.indexOf(">Project<"));
    expect(name).toBeLessThan(html.indexOf('class="hint"'));
    expect(name).toBeLessThan(html.indexOf("Dataset file (JSONL or CSV)"));
    // every field of the form is a label above its box, none a box pushed to the card's right edge
    const fields = html.match(/<label class="field[^"]*"/g) ?? [];
    expect(fields.length).toBe(4);
    expect(fields.every((f) => f.includes("field column"))).toBe(true);
  });

  it("uploads a new version without a name", () => {
    const html = render({ datasetId: 3 });
    expect(html).not.toContain(">Name<");
    expect(html).toContain("Rows of the new version");
  });

  it("keeps the latest version's rows unless replacing is chosen", () => {
    // a deployment's dataset grown by its default would otherwise lose its corrected rows
    const html = render({ datasetId: 3 });
    expect(html).toMatch(/<option value="append" selected="">/);
    expect(html).not.toMatch(/<option value="replace" selected="">/);
    expect(html).toContain("the file&#x27;s rows only (the latest version&#x27;s rows are left out)");
  });
});
