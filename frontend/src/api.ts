/** Small typed helpers for the REST API (session cookie + CSRF token). */

function csrfToken(): string {
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
