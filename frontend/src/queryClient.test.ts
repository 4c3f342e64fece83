import { describe, expect, it } from "vitest";
import { ApiError } from "./api";
import { createQueryClient, shouldRetry } from "./queryClient";

describe("shouldRetry", () => {
  it("never asks again after the server refused (4xx)", () => {
    for (const status of [400, 403, 404, 409]) expect(shouldRetry(0, new ApiError(status, {}))).toBe(false);
  });

  it("tries twice more when the failure may pass (server error, no answer)", () => {
    for (const error of [new ApiError(502, {}), new TypeError("Failed to fetch")]) {
      expect([0, 1, 2].map((count) => shouldRetry(count, error))).toEqual([true, true, false]);
    }
  });
});

describe("createQueryClient", () => {
  it("leaves refetching to the pages' polling and events, also in a background tab", () => {
    const queries = createQueryClient().getDefaultOptions().queries;
    expect(queries?.refetchOnWindowFocus).toBe(false);
    expect(queries?.refetchIntervalInBackground).toBe(true);
    expect(queries?.retry).toBe(shouldRetry);
  });
});
