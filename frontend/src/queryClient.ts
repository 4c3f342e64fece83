/**
 * Server state through TanStack Query: the bundle's one QueryClient and its defaults, and two small hooks
 * the pages share. Query keys and query functions live in one module per domain (runs/queries.ts, ...).
 */
import { QueryClient, type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ApiError } from "./api";

/** How often a failed request is tried again when the failure may pass (no answer, a server error). */
const RETRIES = 2;

/** A 4xx is the server's considered answer (missing, forbidden, invalid): asking again changes nothing. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < RETRIES;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        // Pages poll explicitly (refetchInterval) or refetch on WebSocket events; focusing a tab is no news.
        refetchOnWindowFocus: false,
        // As the timers this replaced did, polling goes on in a background tab (the browser slows it).
        refetchIntervalInBackground: true,
      },
      mutations: { retry: false },
    },
  });
}

/**
 * Refetches the query at `queryKey` whenever `signal` changes after the first render: a WebSocket event
 * counter saying the server's row has moved on (the query fetches itself on mount).
 */
export function useRefetchOnChange(queryKey: QueryKey, signal: string | number | boolean): void {
  const queryClient = useQueryClient();
  const seen = useRef(signal);
  useEffect(() => {
    if (seen.current === signal) return;
    seen.current = signal;
    void queryClient.invalidateQueries({ queryKey, exact: true });
  }, [queryClient, queryKey, signal]);
}

/** `value` once it has stood still for `delayMs` (at once when `delayMs` is 0): typing sends one request. */
export function useDebouncedValue<T extends string | number | null>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return delayMs <= 0 ? value : settled;
}
