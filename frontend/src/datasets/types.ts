/** Shapes of the datasets API (mase_web/datasets), as its OpenAPI schema declares them. */
import type { Schema } from "../api";

export type Dataset = Schema<"Dataset">;
export type DatasetVersion = Schema<"DatasetVersion">;
export type DatasetRow = Schema<"DatasetRow">;
export type UploadResult = Schema<"DatasetUploadResult">;
export type RowError = Schema<"RowError">;
/** The body of an upload's 400: the API's error shape, plus the rows' problems when none was usable. */
export type UploadRefused = Schema<"DatasetUploadRefused">;
export type Duplicates = Schema<"Duplicates">;
export type LabelDistribution = Schema<"LabelDistribution">;
export type IntentCount = Schema<"IntentCount">;
export type SplitCounts = Schema<"SplitCounts">;
export type SplitsSummary = Schema<"SplitsSummary">;

export type Split = "train" | "dev" | "test";
export type Provenance = "uploaded" | "generated" | "corrected" | "annotated";
export type UploadMode = "replace" | "append";

export const SPLITS: Split[] = ["train", "dev", "test"];
export const PROVENANCES: Provenance[] = ["uploaded", "generated", "corrected", "annotated"];

/** The rows view's filters; empty strings mean "any". */
export interface RowFilters {
  split: Split | "";
  intent: string;
  provenance: Provenance | "";
  unlabelled: "" | "true" | "false";
  search: string;
  page: number;
}

export const NO_FILTERS: RowFilters = { split: "", intent: "", provenance: "", unlabelled: "", search: "", page: 1 };
