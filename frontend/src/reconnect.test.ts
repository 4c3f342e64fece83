import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ClosableSocket, keepConnected, retryDelay } from "./reconnect";

/** Stands in for the browser's WebSocket (vitest runs in Node, which has none): records its URL and
 * whether it was closed; `drop` is the server or network closing it. */
class StandInSocket implements ClosableSocket {
  onclose: ((event: CloseEvent) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  close() {
    this.closed = true;
  }
  drop(code = 1006) {
    this.onclose?.({ code } as CloseEvent);
  }
}

describe("retryDelay", () => {
  it("starts at 250 ms and doubles up to 10 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map(retryDelay)).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
  });
});

describe("keepConnected", () => {
  let sockets: StandInSocket[];
  let held: number;
  const start = (onDrop?: (event: CloseEvent) => "stop" | void) => {
    const healthy: (() => void)[] = [];
    const stop = keepConnected<StandInSocket>({
      url: () => `ws://test/stream/?after=${held}`,
      onSocket: (_socket, markHealthy) => healthy.push(markHealthy),
      onDrop,
      open: (url) => {
        const socket = new StandInSocket(url);
        sockets.push(socket);
        return socket;
      },
    });
    return { stop, healthy };
  };

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    held = 0;
  });
  afterEach(() => vi.useRealTimers());

  it("reconnects after a close, with the URL of that moment, waiting longer after each failure", () => {
    start();
    expect(sockets.map((s) => s.url)).toEqual(["ws://test/stream/?after=0"]);
    held = 7;
    sockets[0].drop();
    vi.advanceTimersByTime(249);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets.map((s) => s.url)).toEqual(["ws://test/stream/?after=0", "ws://test/stream/?after=7"]);
    sockets[1].drop(); // never became healthy: the next wait doubles
    vi.advanceTimersByTime(499);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(3);
  });

  it("waits the shortest time again once a connection was healthy", () => {
    const { healthy } = start();
    sockets[0].drop();
    vi.advanceTimersByTime(250);
    sockets[1].drop();
    vi.advanceTimersByTime(500);
    healthy[2]();
    sockets[2].drop();
    vi.advanceTimersByTime(250);
    expect(sockets).toHaveLength(4);
  });

  it("stops on a close the caller calls final, and ignores a stale socket's close", () => {
    start((event) => (event.code === 4403 ? "stop" : undefined));
    sockets[0].drop(1006);
    vi.advanceTimersByTime(250);
    sockets[0].drop(1006); // the old socket again: not the current one, no second loop
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2);
    sockets[1].drop(4403);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2);
  });

  it("stops reconnecting and closes the socket when stopped", () => {
    const { stop } = start();
    sockets[0].drop();
    stop(); // before the retry fires
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);

    sockets = [];
    const second = start();
    second.stop();
    expect(sockets[0].closed).toBe(true);
    sockets[0].drop(); // the browser's close event after stop()
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });
});
