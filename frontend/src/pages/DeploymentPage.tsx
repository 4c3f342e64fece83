import { useCallback, useEffect, useState } from "react";
import { ApiError } from "../api";
import { BatchPanel } from "../deployments/BatchPanel";
import { BreakerBadge } from "../deployments/BreakerBadge";
import { BreakerHistory } from "../deployments/BreakerHistory";
import { BreakerPanel } from "../deployments/BreakerPanel";
import { TicketConsole } from "../deployments/TicketConsole";
import { deploymentsApi } from "../deployments/deploymentsApi";
import { ServingControl } from "../deployments/ServingControl";
import { mayControlBreaker, mayDeploy } from "../deployments/roles";
import type { BreakerSnapshot, DeploymentDetail } from "../deployments/types";
import { useDeploymentStream } from "../deployments/useDeploymentStream";
import "../deployments/deployments.css";
import { formatTime } from "../runs/format";
import { pageData } from "../runs/pageData";
import { runsApi } from "../runs/runsApi";
import type { Me } from "../runs/types";

/** One deployed team: send it a ticket and watch it work, its circuit breaker, batches, transitions. */
export function DeploymentPage() {
  const deploymentId = pageData<{ deployment: number }>()?.deployment ?? 0;
  const [deployment, setDeployment] = useState<DeploymentDetail | null>(null);
  const [breaker, setBreaker] = useState<BreakerSnapshot | null>(null);
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState("");
  const stream = useDeploymentStream(deploymentId);

  const refresh = useCallback(() => {
    deploymentsApi.get(deploymentId).then(
      (fresh) => {
        setDeployment(fresh);
        setBreaker(fresh.breaker);
      },
      (e: Error) =>
        setError(e instanceof ApiError && e.status === 404 ? `Deployment ${deploymentId} does not exist or is not in your projects.` : e.message),
    );
  }, [deploymentId]);
  useEffect(refresh, [refresh]);
  useEffect(() => {
    runsApi.me().then(setMe, () => undefined);
  }, []);
  // The stream's breaker is the newest word (transitions made by any process).
  useEffect(() => {
    if (stream.breaker) setBreaker(stream.breaker);
  }, [stream.breaker]);

  return (
    <main className="page wide runs-ui deployments-ui">
      <p className="crumbs">
        <a href="/deployments/">Deployments</a> / deployment {deploymentId}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
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
                <ServingControl
                  deployment={deployment}
                  canControl={mayDeploy(me, deployment.project) || Boolean(me?.is_staff)}
                  onChanged={(status) => setDeployment({ ...deployment, status })}
                />
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
          <p className="small">
            <a href={`/review/?deployment=${deployment.id}`}>Review this deployment's decisions</a>
          </p>
        </section>
      )}
      {deployment && breaker && (
        <BreakerPanel
          deploymentId={deployment.id}
          breaker={breaker}
          canControl={mayControlBreaker(me, deployment.project) || Boolean(me?.is_staff)}
          onChanged={setBreaker}
        />
      )}
      {deployment && me && (
        <TicketConsole
          deploymentId={deployment.id}
          environment={deployment.environment}
          username={me.username}
          liveEpisodes={stream.episodes}
          liveDecisions={stream.decisions}
          liveReplyParts={stream.replyParts}
          onAnswered={refresh}
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
      {deployment && <BatchPanel deploymentId={deployment.id} live={stream.batches} />}
      {deployment && <BreakerHistory deploymentId={deployment.id} version={stream.transitions} />}
    </main>
  );
}
