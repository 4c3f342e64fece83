/** Where a dataset's rows take the intents annotators choose from when no deployment is named (the
 * enqueue-dataset API's rule): the dataset's own catalogue, else that of the deployment whose corrections
 * it collects; a dataset with neither needs a deployment named, or the server answers a 400. */
import type { Dataset } from "../datasets/types";

export const NO_CATALOGUE = "this dataset declares no intent catalogue: choose a deployment whose intents to label with";

/** What "no deployment" means for `dataset` in words, or null when it means nothing (choose a deployment). */
export function ownIntentsLabel(dataset: Dataset | undefined): string | null {
  if (dataset === undefined || (dataset.catalogue?.intents.length ?? 0) > 0) return "the dataset's catalogue";
  if (dataset.deployment !== null) return "the catalogue of the deployment it collects corrections of";
  return null;
}

/** The form's fields as its labels say them, for the server's field errors. */
export const ENQUEUE_DATASET_FIELDS: Record<string, string> = {
  version: "Dataset",
  deployment: "Intents of",
  limit: "At most",
};
