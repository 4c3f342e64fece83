/** Query keys and functions of the datasets API (datasetsApi.ts), defined once. */
import { queryOptions } from "@tanstack/react-query";
import { datasetsApi } from "./datasetsApi";
import { rowQuery } from "./logic";
import type { RowFilters } from "./types";

export const datasetQueries = {
  list: () => queryOptions({ queryKey: ["datasets"], queryFn: datasetsApi.list }),
  detail: (id: number) => queryOptions({ queryKey: ["datasets", id], queryFn: () => datasetsApi.get(id) }),
  versions: (id: number) => queryOptions({ queryKey: ["datasets", id, "versions"], queryFn: () => datasetsApi.versions(id) }),
  rows: (version: number, filters: RowFilters) => {
    const query = rowQuery(filters);
    return queryOptions({ queryKey: ["dataset-versions", version, "rows", query], queryFn: () => datasetsApi.rows(version, query) });
  },
  labels: (version: number) => queryOptions({ queryKey: ["dataset-versions", version, "labels"], queryFn: () => datasetsApi.labels(version) }),
  splits: (version: number) => queryOptions({ queryKey: ["dataset-versions", version, "splits"], queryFn: () => datasetsApi.splits(version) }),
};

/** What the signed-in user may do with a project's datasets (mirrors mase_web/accounts/permissions.py). */
export const EDITOR_ROLES = ["product_manager", "operator", "admin"];
