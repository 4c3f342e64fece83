import { describe, expect, it } from "vitest";

import type { Dataset } from "../datasets/types";
import { countsText, trainableVersions } from "./TicketsField";

const dataset = (id: number, project: number, latest: Dataset["latest_version"]) =>
  ({ id, project, name: `set ${id}`, latest_version: latest }) as unknown as Dataset;

describe("the datasets a routing spec can train on", () => {
  it("are the project's datasets with a version, each by its newest version", () => {
    const datasets = [
      dataset(1, 7, { id: 12, number: 2, row_count: 60 } as Dataset["latest_version"]),
      dataset(2, 7, null),
      dataset(3, 8, { id: 30, number: 1, row_count: 5 } as Dataset["latest_version"]),
    ];
    expect(trainableVersions(datasets, 7)).toEqual([{ version: 12, label: "set 1 · v2 (60 rows)" }]);
  });

  it("say how many labelled rows each split holds", () => {
    expect(countsText({ train: 40, test: 6 })).toBe("train 40 · dev 0 · test 6");
  });
});
