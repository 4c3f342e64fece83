import type { AlgorithmInfo } from "../designer/types";

/**
 * Whether a run's trainer records no attention reports (who listened to whom), so its run will never have
 * a communication graph: the catalogue says the algorithm's agents send no messages. Anything not known
 * (no algorithm yet, the catalogue not loaded, an algorithm it does not list) is false: the report may come.
 */
export function reportsNoAttention(
  algorithm: string | null,
  algorithms: readonly Pick<AlgorithmInfo, "name" | "messages">[] | null,
): boolean {
  if (algorithm === null || algorithms === null) return false;
  const info = algorithms.find((a) => a.name === algorithm);
  return info !== undefined && !info.messages;
}
