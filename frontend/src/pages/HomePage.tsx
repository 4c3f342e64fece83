import { useCallback, useEffect, useState } from "react";
import { api } from "../api";
import { useSocket } from "../useSocket";

interface Membership {
  project: number;
  project_name: string;
  role: string;
}
interface Me {
  username: string;
  memberships: Membership[];
}
interface Notification {
  kind: string;
  note: string;
  worker: string;
  sent_at: number;
}

/** Landing page: who you are, your projects, and a live feed of notifications from workers. */
export function HomePage() {
  const [me, setMe] = useState<Me | null>(null);
  const [feed, setFeed] = useState<Notification[]>([]);
  const [error, setError] = useState("");

  useEffect(() => {
    api<Me>("me/").then(setMe, (e: Error) => setError(e.message));
  }, []);

  const onMessage = useCallback((message: unknown) => {
    const m = message as { type: string; payload?: Notification };
    if (m.type === "notification" && m.payload) setFeed((old) => [m.payload!, ...old].slice(0, 50));
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
    <main className="page">
      <h1>Welcome{me ? `, ${me.username}` : ""}</h1>
      <section className="card">
        <h2>Your projects</h2>
        {me?.memberships.length ? (
          <ul>
            {me.memberships.map((m) => (
              <li key={m.project}>
                {m.project_name} <span className="badge">{m.role.replace("_", " ")}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p>No projects yet.</p>
        )}
      </section>
      <section className="card">
        <h2>
          Live notifications <span className={`status status-${status}`} data-testid="socket-status">{status}</span>
        </h2>
        <button onClick={ping} disabled={status !== "open"}>
          Ping a worker
        </button>
        {error && <p className="error" role="alert">{error}</p>}
        <ul className="feed" data-testid="feed">
          {feed.map((n) => (
            <li key={n.sent_at}>
              {n.kind} from worker <code>{n.worker}</code>: {n.note}
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
