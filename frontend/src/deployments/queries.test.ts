import { describe, expect, it } from "vitest";
import { createQueryClient } from "../queryClient";
import type { Paginated } from "../runs/types";
import { deploymentQueries, patchDecision, patchDeployment, setBreaker } from "./queries";
import type { BreakerSnapshot, DecisionRow, DeploymentDetail, DeploymentSummary } from "./types";

const row = (id: number, review_status: string) => ({ id, review_status }) as unknown as DecisionRow;
const page = <T>(results: T[]): Paginated<T> => ({ count: results.length, next: null, previous: null, results });

describe("cache updates of the deployments pages", () => {
  it("writes a new serving status into the deployment's page and its row of the list", () => {
    const client = createQueryClient();
    client.setQueryData(deploymentQueries.detail(1).queryKey, { id: 1, status: "active" } as DeploymentDetail);
    client.setQueryData(deploymentQueries.list().queryKey, page([{ id: 1, status: "active" }, { id: 2, status: "active" }] as DeploymentSummary[]));
    patchDeployment(client, 1, { status: "stopped" });
    expect(client.getQueryData(deploymentQueries.detail(1).queryKey)?.status).toBe("stopped");
    expect(client.getQueryData(deploymentQueries.list().queryKey)?.results.map((d) => d.status)).toEqual(["stopped", "active"]);
  });

  it("writes nothing where nothing was read yet", () => {
    const client = createQueryClient();
    patchDeployment(client, 1, { status: "stopped" });
    setBreaker(client, 1, { state: "open" } as BreakerSnapshot);
    expect(client.getQueryData(deploymentQueries.detail(1).queryKey)).toBeUndefined();
    expect(client.getQueryData(deploymentQueries.list().queryKey)).toBeUndefined();
  });

  it("puts the newest breaker into the deployment's page", () => {
    const client = createQueryClient();
    client.setQueryData(deploymentQueries.detail(1).queryKey, { id: 1, breaker: { state: "closed" } } as DeploymentDetail);
    setBreaker(client, 1, { state: "open" } as BreakerSnapshot);
    expect(client.getQueryData(deploymentQueries.detail(1).queryKey)?.breaker.state).toBe("open");
  });

  it("replaces a reviewed decision in every cached page that lists it", () => {
    const client = createQueryClient();
    client.setQueryData(deploymentQueries.decisions("page=1").queryKey, page([row(1, "unreviewed"), row(2, "unreviewed")]));
    client.setQueryData(deploymentQueries.decisions("page=1&agent=a").queryKey, page([row(2, "unreviewed")]));
    patchDecision(client, row(2, "wrong"));
    const statuses = (query: string) => client.getQueryData(deploymentQueries.decisions(query).queryKey)?.results.map((r) => r.review_status);
    expect(statuses("page=1")).toEqual(["unreviewed", "wrong"]);
    expect(statuses("page=1&agent=a")).toEqual(["wrong"]);
  });
});
