import { useEffect, useState } from "react";
import { workflowsApi } from "../designer/designerApi";
import type { AlgorithmInfo } from "../designer/types";

// One catalogue request per page: a run page's cards remount as its events arrive.
let request: Promise<AlgorithmInfo[]> | null = null;

/**
 * The training algorithms with their capabilities, as the designer's catalogue serves them
 * (agents/spec/algorithms.py); null until loaded, and while `wanted` is false (nothing is fetched then).
 */
export function useAlgorithms(wanted = true): AlgorithmInfo[] | null {
  const [algorithms, setAlgorithms] = useState<AlgorithmInfo[] | null>(null);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    request ??= workflowsApi.catalogue().then((c) => c.algorithms);
    request.then(
      (loaded) => live && setAlgorithms(loaded),
      () => void (request = null), // a failed load is retried by the next card that asks
    );
    return () => void (live = false);
  }, [wanted]);
  return wanted ? algorithms : null;
}
