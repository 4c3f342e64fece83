import { useCallback, useEffect, useState } from "react";
import { feedbackApi } from "../feedback/feedbackApi";
import { QueueCard } from "../feedback/QueueCard";
import { QueueCreateForm } from "../feedback/QueueCreateForm";
import type { Queue } from "../feedback/types";
import { runsApi } from "../runs/runsApi";
import type { Me } from "../runs/types";

const MANAGER_ROLES = ["product_manager", "admin"];

/** Managers' view of human feedback: create queues, fill them, watch agreement, train reward models. */
export function FeedbackPage() {
  const [me, setMe] = useState<Me | null>(null);
  const [queues, setQueues] = useState<Queue[]>([]);
  const [error, setError] = useState("");

  const load = useCallback(() => {
    feedbackApi.queues().then(
      (body) => setQueues(body.results.filter((q) => q.can_manage)),
      (e: Error) => setError(e.message),
    );
  }, []);
  useEffect(() => {
    runsApi.me().then(setMe, (e: Error) => setError(e.message));
    load();
  }, [load]);

  const projects = (me?.memberships ?? []).filter((m) => MANAGER_ROLES.includes(m.role));
  return (
    <main className="page wide runs-ui feedback-ui">
      <h1>Feedback</h1>
      {error && <p className="error" role="alert">{error}</p>}
      {me && projects.length === 0 && !me.is_staff && (
        <p className="empty-state">Only product managers and admins manage feedback queues.</p>
      )}
      {queues.length === 0 && projects.length > 0 && <p className="empty-state">No queues yet: create one below.</p>}
      {queues.map((queue) => (
        <QueueCard key={queue.id} queue={queue} onChanged={load} />
      ))}
      {projects.length > 0 && <QueueCreateForm projects={projects} onCreated={load} />}
    </main>
  );
}
