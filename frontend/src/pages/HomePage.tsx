import { useQuery } from "@tanstack/react-query";
import { RecentDeployments } from "../home/RecentDeployments";
import { RecentRuns } from "../home/RecentRuns";
import { TemplateStart } from "../home/TemplateStart";
import { WorkerState } from "../home/WorkerState";
import { runQueries } from "../runs/queries";
import "../runs/runs.css";

const SEES_RUNS = new Set(["product_manager", "operator", "admin"]);

/** Where a new user starts: recent runs and deployments, the template gallery, and the workers' state. */
export function HomePage() {
  const { data: me, error } = useQuery(runQueries.me());
  const memberships = me?.memberships ?? [];
  const seesRuns = !!me && (me.is_staff || memberships.some((m) => SEES_RUNS.has(m.role)));
  const annotatorOnly = !!me && memberships.length > 0 && memberships.every((m) => m.role === "annotator");

  return (
    <main className="page wide runs-ui">
      <h1>Welcome{me ? `, ${me.username}` : ""}</h1>
      {error && <p className="error" role="alert">{error.message}</p>}
      {me && (
        <p className="muted" data-testid="home-projects">
          {memberships.length
            ? memberships.map((m) => `${m.project_name} (${m.role.replace("_", " ")})`).join(" · ")
            : "You are in no project yet: ask an admin to add you to one."}
        </p>
      )}
      {annotatorOnly && (
        <p>
          Your work is in <a href="/annotate/">Annotate</a>: label tickets with their intents and rate the team's answers
          there.
        </p>
      )}
      {seesRuns && (
        <div className="home-grid">
          <RecentRuns />
          <RecentDeployments />
        </div>
      )}
      {me && !annotatorOnly && <TemplateStart memberships={memberships} />}
      {/* workers run training: nothing an annotator starts, waits for or may ping */}
      {me && !annotatorOnly && <WorkerState />}
    </main>
  );
}
