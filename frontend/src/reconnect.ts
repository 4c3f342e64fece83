/**
 * The one reconnect policy of the app's live sockets (notifications, deployment and run streams).
 *
 * After a drop the next attempt waits 250 ms, and twice as long after each attempt that did not become
 * healthy, at most 10 s: a blip costs a quarter second, a restarting server is not hammered. The caller
 * says when a connection is healthy (that resets the wait) and which closes are final.
 */

export const FIRST_RETRY_MS = 250;
export const MAX_RETRY_MS = 10_000;

/** The wait before the next attempt after `failures` attempts in a row that never became healthy. */
export function retryDelay(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
}

/** The part of a browser WebSocket the loop uses. */
export interface ClosableSocket {
  onclose: ((event: CloseEvent) => void) | null;
  close(): void;
}

export interface KeepConnectedOptions<S extends ClosableSocket> {
  /** The URL of each attempt, read when it starts (a stream resumes after what it already holds). */
  url: () => string;
  /**
   * Each new socket as it is created: set its onopen / onmessage here (its onclose is the loop's).
   * Call `healthy()` once the connection proves good; the next drop then waits the shortest time again.
   */
  onSocket: (socket: S, healthy: () => void) => void;
  /** The current socket closed while the loop runs; "stop" ends the loop (a close retrying cannot fix). */
  onDrop?: (event: CloseEvent) => "stop" | void;
  /** Opens a socket; a browser WebSocket by default. */
  open?: (url: string) => S;
}

/** Connects now and again after every drop, waiting `retryDelay`; the returned function stops it. */
export function keepConnected<S extends ClosableSocket = WebSocket>(options: KeepConnectedOptions<S>): () => void {
  const open = options.open ?? ((url: string) => new WebSocket(url) as unknown as S);
  let failures = 0;
  let current: S | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const connect = () => {
    timer = undefined;
    const socket = open(options.url());
    current = socket;
    options.onSocket(socket, () => {
      failures = 0;
    });
    socket.onclose = (event) => {
      if (stopped || socket !== current) return;
      if (options.onDrop?.(event) === "stop") return;
      timer = setTimeout(connect, retryDelay(failures++));
    };
  };
  connect();

  return () => {
    stopped = true;
    clearTimeout(timer);
    current?.close();
  };
}

/** The ws:// (wss:// under https) URL of `path` on the page's own host. */
export function socketUrl(path: string): string {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${window.location.host}${path}`;
}
