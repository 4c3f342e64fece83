import { useEffect, useRef, useState } from "react";

export type SocketStatus = "connecting" | "open" | "closed";

/** A WebSocket to `path` that reconnects with backoff and hands every JSON message to `onMessage`. */
export function useSocket(path: string, onMessage: (message: unknown) => void): SocketStatus {
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const handler = useRef(onMessage);
  handler.current = onMessage;

  useEffect(() => {
    let socket: WebSocket | null = null;
    let retry = 0;
    let timer: number | undefined;
    let stopped = false;
    const connect = () => {
      const scheme = window.location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${window.location.host}${path}`);
      setStatus("connecting");
      socket.onopen = () => {
        retry = 0;
        setStatus("open");
      };
      socket.onmessage = (event) => handler.current(JSON.parse(event.data));
      socket.onclose = () => {
        setStatus("closed");
        if (!stopped) timer = window.setTimeout(connect, Math.min(10_000, 250 * 2 ** retry++));
      };
    };
    connect();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      socket?.close();
    };
  }, [path]);

  return status;
}
