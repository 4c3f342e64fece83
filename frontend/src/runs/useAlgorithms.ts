import { useQuery } from "@tanstack/react-query";
import { workflowQueries } from "../designer/queries";
import type { AlgorithmInfo } from "../designer/types";

/**
 * The training algorithms with their capabilities, as the designer's catalogue serves them
 * (agents/spec/algorithms.py); null until loaded, and while `wanted` is false (nothing is fetched then).
 * One catalogue request per page (a run page's cards remount as its events arrive); a failed load is
 * retried by the next card that asks.
 */
export function useAlgorithms(wanted = true): AlgorithmInfo[] | null {
  const { data } = useQuery({ ...workflowQueries.catalogue(), enabled: wanted, select: (c) => c.algorithms });
  return wanted ? (data ?? null) : null;
}
