/** Query keys and query functions of the workflow API (designerApi.ts), defined once for every page that reads it. */
import { queryOptions } from "@tanstack/react-query";
import { workflowsApi } from "./designerApi";

export const workflowQueries = {
  /** `query` as workflowsApi.list takes it: "" or "?ordering=-updated_at&search=…". */
  list: (query: string) => queryOptions({ queryKey: ["workflows", "list", query], queryFn: () => workflowsApi.list(query) }),
  templates: () => queryOptions({ queryKey: ["workflows", "templates"], queryFn: workflowsApi.templates }),
  /** Roles, algorithms, options: they change only with a deploy, so one request per page. */
  catalogue: () => queryOptions({ queryKey: ["workflows", "catalogue"], queryFn: workflowsApi.catalogue, staleTime: Infinity }),
  versions: (id: number) => queryOptions({ queryKey: ["workflows", id, "versions"], queryFn: () => workflowsApi.versions(id) }),
  /** A published version never changes: one request per version and page. */
  version: (id: number, number: number) =>
    queryOptions({ queryKey: ["workflows", id, "versions", number], queryFn: () => workflowsApi.version(id, number), staleTime: Infinity }),
};
