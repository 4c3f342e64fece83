import { useQuery } from "@tanstack/react-query";
import { QueueCard } from "../feedback/QueueCard";
import { QueueCreateForm } from "../feedback/QueueCreateForm";
import { feedbackQueries } from "../feedback/queries";
import { runQueries } from "../runs/queries";

const MANAGER_ROLES = ["product_manager", "admin"];

/** Managers' view of human feedback: create queues, fill them, watch agreement, train reward models (the
 * forms re-read the queues they change). */
export function FeedbackPage() {
  const { data: me, error: meError } = useQuery(runQueries.me());
  const { data: queues = [], error: queuesError } = useQuery({
    ...feedbackQueries.queues(),
    select: (body) => body.results.filter((q) => q.can_manage),
  });
  const error = (queuesError ?? meError)?.message;

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
        <QueueCard key={queue.id} queue={queue} />
      ))}
      {projects.length > 0 && <QueueCreateForm projects={projects} />}
    </main>
  );
}
