import { useEffect, useRef, useState } from "react";
import { keepConnected, socketUrl } from "./reconnect";

export type SocketStatus = "connecting" | "open" | "closed";

/** A WebSocket to `path` that reconnects with backoff (reconnect.ts) and hands every JSON message to `onMessage`. */
export function useSocket(path: string, onMessage: (message: unknown) => void): SocketStatus {
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const handler = useRef(onMessage);
  handler.current = onMessage;

  useEffect(
    () =>
      keepConnected({
        url: () => socketUrl(path),
        onSocket: (socket, healthy) => {
          setStatus("connecting");
          socket.onopen = () => {
            healthy();
            setStatus("open");
          };
          socket.onmessage = (event) => handler.current(JSON.parse(event.data));
        },
        onDrop: () => setStatus("closed"),
      }),
    [path],
  );

  return status;
}
