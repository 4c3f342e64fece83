import { describe, expect, it } from "vitest";

import type { Dataset, LabelDistribution } from "../datasets/types";
import type { Json } from "./types";
import { countsText, labelledIntents, paramsForDataset, trainableVersions } from "./TicketsField";

const dataset = (id: number, project: number, latest: Dataset["latest_version"]) =>
  ({ id, project, name: `set ${id}`, latest_version: latest }) as unknown as Dataset;

describe("the datasets a routing spec can train on", () => {
  it("are the project's datasets with a version, each by its newest version", () => {
    const datasets = [
      dataset(1, 7, { id: 12, number: 2, row_count: 60 } as Dataset["latest_version"]),
      dataset(2, 7, null),
      dataset(3, 8, { id: 30, number: 1, row_count: 5 } as Dataset["latest_version"]),
    ];
    expect(trainableVersions(datasets, 7)).toEqual([{ version: 12, label: "set 1 · v2 (60 rows)", intents: [] }]);
  });

  it("say how many labelled rows each split holds", () => {
    expect(countsText({ train: 40, test: 6 })).toBe("train 40 · dev 0 · test 6");
  });
});

describe("a dataset with its own intents", () => {
  const bikes = {
    ...dataset(4, 7, { id: 40, number: 1, row_count: 74 } as Dataset["latest_version"]),
    catalogue: { intents: [{ name: "rental", description: "hire a bike", keywords: [] }, { name: "warranty", description: "" }] },
  } as unknown as Dataset;

  it("offers its catalogue as the spec declares one (no empty description or keywords)", () => {
    expect(trainableVersions([bikes], 7)[0].intents).toEqual([{ name: "rental", description: "hire a bike" }, { name: "warranty" }]);
  });

  it("brings that catalogue into the spec with the ticket name, so the team is not trained on the shipped intents", () => {
    const intents = trainableVersions([bikes], 7)[0].intents;
    const used = paramsForDataset({ shuffle: false }, "dataset-4-abc-labelled", intents, ["order_tracking", "return_refund"]);
    expect(used).toEqual({ params: { shuffle: false, tickets: "dataset-4-abc-labelled", intents }, adopted: true });
    expect(paramsForDataset(used.params, "dataset-4-abc-labelled", intents).adopted).toBe(false);
  });

  it("keeps the spec's catalogue, and its words, when it already holds every intent of the dataset", () => {
    const shipped = ["order_tracking", "return_refund"];
    const mine: Record<string, Json>[] = [{ name: "order_tracking" }, { name: "cancel_subscription", description: "stop a plan, in my words" }];
    const theirs = [{ name: "cancel_subscription", description: "cancel" }, { name: "order_tracking", description: "order tracking" }];
    expect(paramsForDataset({ intents: mine }, "set", theirs, shipped)).toEqual({ params: { intents: mine, tickets: "set" }, adopted: false });
    expect(paramsForDataset({}, "set", [{ name: "return_refund", description: "refund" }], shipped)).toEqual({ params: { tickets: "set" }, adopted: false });
    // one intent the spec lacks: the dataset's intents, the spec's own words kept for those it declared
    const more = [...theirs, { name: "rental", description: "hire a bike" }];
    expect(paramsForDataset({ intents: mine }, "set", more, shipped).params.intents).toEqual([mine[1], mine[0], more[2]]);
  });

  it("leaves the catalogue alone when the dataset declares none", () => {
    const declared = [{ name: "password_reset", description: "locked out" }];
    expect(paramsForDataset({ intents: declared }, "set", [])).toEqual({ params: { intents: declared, tickets: "set" }, adopted: false });
  });
});

describe("a dataset without a catalogue", () => {
  const labels = (...names: [string, number][]) =>
    ({ intents: names.map(([name, count]) => ({ name, count, train: count, dev: 0, test: 0 })), unlabelled: {}, out_of_scope: {} }) as unknown as LabelDistribution;
  const shipped = ["order_tracking", "return_refund"];

  it("brings the intents its rows carry, by name, when the environment lacks one of them", () => {
    expect(labelledIntents(labels(["rental", 12], ["order_tracking", 4], ["unused", 0]), shipped)).toEqual([{ name: "rental" }, { name: "order_tracking" }]);
  });

  it("brings none when its labels are all the environment's own", () => {
    expect(labelledIntents(labels(["order_tracking", 4], ["return_refund", 2]), shipped)).toEqual([]);
  });
});
