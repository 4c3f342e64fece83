/** Query keys and query functions of the home page's own read (homeApi.ts); "me", the newest runs and the
 * templates it reads through the runs and workflow modules. */
import { queryOptions } from "@tanstack/react-query";
import { homeApi } from "./homeApi";

export const homeQueries = {
  deployments: () => queryOptions({ queryKey: ["home", "deployments"], queryFn: homeApi.deployments }),
};
