import { useCallback, useState } from "react";
import { api } from "../api";
import { useWorkers } from "../runs/useWorkers";
import { useSocket } from "../useSocket";

interface Notification {
  kind: string;
  note: string;
  worker: string;
  sent_at: number;
}

/** Which workers are connected and which queues (CPU, GPU) they take runs from, refreshed live; and the
 * notification channel from the workers, with a ping to check it end to end. */
export function WorkerState() {
  const workers = useWorkers();
  const [feed, setFeed] = useState<Notification[]>([]);
  const [error, setError] = useState("");
  const onMessage = useCallback((message: unknown) => {
    const m = message as { type: string; payload?: Notification };
    if (m.type === "notification" && m.payload) setFeed((old) => [m.payload!, ...old].slice(0, 5));
  }, []);
  const status = useSocket("/ws/notifications/", onMessage);
  const ping = async () => {
    setError("");
    try {
      await api("notifications/ping/", { method: "POST", body: JSON.stringify({ note: "hello from the browser" }) });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card" data-testid="home-workers">
      <h2>
        Workers <span className={`status status-${status}`} data-testid="socket-status">{status}</span>
      </h2>
      {workers === null ? (
        <p className="muted">Asking the workers…</p>
      ) : workers.error ? (
        <p className="error">The task broker could not be asked: {workers.error}</p>
      ) : (
        <ul className="home-list" data-testid="worker-queues">
          {Object.entries(workers.queues).map(([queue, names]) => (
            <li key={queue}>
              <span className="worker-queue">{queue.toUpperCase()}</span>
              {names.length ? (
                <span>
                  {names.length} worker{names.length === 1 ? "" : "s"} connected <span className="muted small">({names.join(", ")})</span>
                </span>
              ) : (
                <span className="muted">no worker connected: runs sent to this queue wait</span>
              )}
            </li>
          ))}
        </ul>
      )}
      <p>
        <button onClick={ping} disabled={status !== "open"}>
          Ping a worker
        </button>
      </p>
      {error && <p className="error" role="alert">{error}</p>}
      <ul className="feed" data-testid="feed">
        {feed.map((n) => (
          <li key={n.sent_at}>
            {n.kind} from worker <code>{n.worker}</code>: {n.note}
          </li>
        ))}
      </ul>
    </section>
  );
}
