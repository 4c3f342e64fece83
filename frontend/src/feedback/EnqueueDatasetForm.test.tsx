import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import type { Dataset } from "../datasets/types";
import { IntentsOfField } from "./EnqueueDatasetForm";
import { ErrorList } from "./ErrorList";
import { ENQUEUE_DATASET_FIELDS } from "./intentsSource";

const dataset = (fields: Partial<Dataset>) => ({ id: 1, project: 2, name: "tickets", catalogue: null, deployment: null, ...fields }) as Dataset;
const DEPLOYMENTS = [{ id: 5, name: "support" }];
const field = (d: Dataset | undefined, deployments = DEPLOYMENTS) =>
  renderToStaticMarkup(<IntentsOfField dataset={d} deployments={deployments} value={0} onChange={() => {}} />);

describe("the intents queue's 'Intents of' choice", () => {
  it("offers the dataset's catalogue only when the dataset has one", () => {
    const withCatalogue = field(dataset({ catalogue: { intents: [{ name: "refund", description: "money back" }] } }));
    expect(withCatalogue).toContain("the dataset&#x27;s catalogue");
    expect(withCatalogue).not.toContain("no intent catalogue");

    const without = field(dataset({}));
    expect(without).not.toContain("the dataset&#x27;s catalogue");
    expect(without).toContain("choose a deployment");
    expect(without).toContain("deployment support");
    expect(without).toContain("this dataset declares no intent catalogue");
    expect(without).toMatch(/<select[^>]*required/);
  });

  it("counts a corrections dataset's deployment as its catalogue, and says what to do when nothing is left", () => {
    expect(field(dataset({ deployment: 5 }))).toContain("the catalogue of the deployment it collects corrections of");
    expect(field(dataset({}), [])).toContain("give the dataset a catalogue on Datasets");
  });

  it("names a refused field by the form's label, not the API's key", () => {
    const error = new ApiError(400, { detail: "Invalid input.", errors: { deployment: ["this dataset declares no intent catalogue"] } });
    const html = renderToStaticMarkup(<ErrorList error={error} labels={ENQUEUE_DATASET_FIELDS} />);
    expect(html).toContain("Intents of: this dataset declares no intent catalogue");
    expect(html).not.toContain("<code>deployment</code>");
  });
});
