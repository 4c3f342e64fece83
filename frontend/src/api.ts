/** Small typed helpers for the REST API (session cookie + CSRF token), and its response types. */
import type { components } from "./api.generated";

/**
 * A shape as the API's OpenAPI schema declares it (api.schema.yaml, which `manage.py spectacular` writes;
 * `npm run gen:api` turns it into api.generated.ts). Aliasing these keeps the pages' types in step with
 * the serializers: a renamed or retyped field fails `tsc` instead of a page at run time.
 */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

/**
 * `T` with some fields given their client-side shape: the schema types JSON columns as `unknown`, and
 * fields a serializer only defaults on input (so optional there) are always present in its responses.
 */
export type Refine<T, Fields extends { [K in keyof Fields]: K extends keyof T ? unknown : never }> = Omit<T, keyof Fields> &
  Fields;

export function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { detail?: string; errors?: Record<string, string[]> },
  ) {
    super(body.detail ?? `HTTP ${status}`);
  }
}

/** A failed request in one line: the server's field messages joined with "; ", else its reason. */
export function fieldErrorText(e: Error): string {
  return Object.values(e instanceof ApiError ? (e.body.errors ?? {}) : {}).flat().join("; ") || e.message;
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`/api/${path}`, {
    credentials: "same-origin",
    ...init,
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), ...init.headers },
  });
  const body = response.status === 204 ? {} : await response.json();
  if (!response.ok) throw new ApiError(response.status, body);
  return body as T;
}
