import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { ApiError } from "../api";
import { BatchPanel } from "../deployments/BatchPanel";
import { BreakerBadge } from "../deployments/BreakerBadge";
import { BreakerHistory } from "../deployments/BreakerHistory";
import { BreakerPanel } from "../deployments/BreakerPanel";
import { EvolutionPanel } from "../deployments/EvolutionPanel";
import { ProposalsPanel } from "../deployments/ProposalsPanel";
import { takesTickets } from "../deployments/consoleLabels";
import { TicketConsole } from "../deployments/TicketConsole";
import { TeamPanel } from "../deployments/team/TeamPanel";
import { deploymentQueries, setBreaker } from "../deployments/queries";
import { ServingControl } from "../deployments/ServingControl";
import { ScopeGateControl } from "../deployments/ScopeGateControl";
import { StyleExploreControl } from "../deployments/StyleExploreControl";
import { mayControlBreaker, mayDeploy, mayReview } from "../deployments/roles";
import { useDeploymentStream } from "../deployments/useDeploymentStream";
import "../deployments/deployments.css";
import { formatTime } from "../runs/format";
import { pageData } from "../runs/pageData";
import { runQueries } from "../runs/queries";

function loadErrorText(deploymentId: number, e: Error): string {
  return e instanceof ApiError && e.status === 404 ? `Deployment ${deploymentId} does not exist or is not in your projects.` : e.message;
}

/** One deployed team: send it a ticket and watch it work, its circuit breaker, batches, transitions. */
export function DeploymentPage() {
  const deploymentId = pageData<{ deployment: number }>()?.deployment ?? 0;
  const queryClient = useQueryClient();
  // The deployment and its breaker: each read, a sent ticket (which re-reads it), a forced transition
  // and the live stream write the newest word into this one cache entry.
  const { data: deployment, error } = useQuery(deploymentQueries.detail(deploymentId));
  const breaker = deployment?.breaker ?? null;
  const me = useQuery(runQueries.me()).data ?? null;
  const stream = useDeploymentStream(deploymentId);
  // The stream's breaker is the newest word (transitions made by any process).
  useEffect(() => {
    if (stream.breaker) setBreaker(queryClient, deploymentId, stream.breaker);
  }, [queryClient, deploymentId, stream.breaker]);

  return (
    <main className="page wide runs-ui deployments-ui">
      <p className="crumbs">
        <a href="/deployments/">Deployments</a> / deployment {deploymentId}
      </p>
      {error && (
        <p className="error" role="alert">
          {loadErrorText(deploymentId, error)}
        </p>
      )}
      {deployment && (
        <section className="card run-header">
          <div className="run-title">
            <h1>{deployment.name}</h1>
            <span className={`status stream-${stream.status === "open" ? "live" : "connecting"}`} data-testid="stream-status">
              {stream.status === "open" ? "live" : stream.status}
            </span>
          </div>
          <dl className="facts">
            <div>
              <dt>Team</dt>
              <dd>
                {deployment.agents.join(", ")} ({deployment.environment})
              </dd>
            </div>
            <div>
              <dt>Trained by</dt>
              <dd>
                <a href={`/runs/${deployment.run}/`}>run {deployment.run}</a> {deployment.run_name}
              </dd>
            </div>
            <div>
              <dt>Fallback</dt>
              <dd>{deployment.fallback.replace(/_/g, " ")}</dd>
            </div>
            <div>
              <dt>Serving</dt>
              <dd>
                <ServingControl deployment={deployment} canControl={mayDeploy(me, deployment.project) || Boolean(me?.is_staff)} />
              </dd>
            </div>
            <div>
              <dt>Breaker</dt>
              <dd>{breaker && <BreakerBadge state={breaker.state} />}</dd>
            </div>
            <div>
              <dt>Deployed</dt>
              <dd>
                {formatTime(deployment.created_at)} by {deployment.created_by ?? "–"}
              </dd>
            </div>
          </dl>
          {mayReview(me, deployment.project) && (
            <p className="small">
              <a href={`/review/?deployment=${deployment.id}`}>Review this deployment's decisions</a>
            </p>
          )}
        </section>
      )}
      {deployment && breaker && (
        <BreakerPanel
          deploymentId={deployment.id}
          breaker={breaker}
          canControl={mayControlBreaker(me, deployment.project) || Boolean(me?.is_staff)}
        />
      )}
      {deployment && me && deployment.environment === "large_team" && (
        <TeamPanel
          deploymentId={deployment.id}
          columns={stream.allocations}
          rosterVersion={stream.roster}
          canSend={mayDeploy(me, deployment.project) || mayControlBreaker(me, deployment.project) || Boolean(me.is_staff)}
          canControl={mayControlBreaker(me, deployment.project) || Boolean(me.is_staff)}
        />
      )}
      {deployment && me && deployment.environment !== "large_team" && (
        <TicketConsole
          deploymentId={deployment.id}
          environment={deployment.environment}
          username={me.username}
          canReview={mayReview(me, deployment.project)}
          liveEpisodes={stream.episodes}
          liveDecisions={stream.decisions}
          liveReplyParts={stream.replyParts}
        />
      )}
      {stream.alerts.length > 0 && (
        <section className="card" aria-label="Live alerts">
          <h2>Alerts</h2>
          <ul className="alert-feed" data-testid="alert-feed">
            {stream.alerts.map((a) => (
              <li key={a.id} className={`feed-item level-${a.level === "critical" ? "alert" : a.level}`}>
                <span className="feed-title">{a.name}</span>
                <span className="feed-detail">{a.detail}</span>
                <time className="muted">{formatTime(a.created_at)}</time>
              </li>
            ))}
          </ul>
        </section>
      )}
      {deployment?.routing && (
        <ScopeGateControl deployment={deployment} canEdit={mayDeploy(me, deployment.project) || Boolean(me?.is_staff)} />
      )}
      {deployment && takesTickets(deployment.environment) && (
        <StyleExploreControl deployment={deployment} canEdit={mayDeploy(me, deployment.project) || Boolean(me?.is_staff)} />
      )}
      {deployment && (
        <EvolutionPanel deploymentId={deployment.id} canEvolve={mayDeploy(me, deployment.project) || Boolean(me?.is_staff)} />
      )}
      {deployment && takesTickets(deployment.environment) && (
        <ProposalsPanel
          deploymentId={deployment.id}
          routing={Boolean(deployment.routing)}
          canDesign={mayDeploy(me, deployment.project) || Boolean(me?.is_staff)}
        />
      )}
      {deployment && takesTickets(deployment.environment) && <BatchPanel deploymentId={deployment.id} live={stream.batches} />}
      {deployment && <BreakerHistory deploymentId={deployment.id} version={stream.transitions} />}
    </main>
  );
}
