import { useDesigner } from "./store";

function Meter({ label, value, hint }: { label: string; value: number; hint: string }) {
  return (
    <div className="meter" title={hint}>
      <span>{label}</span>
      <div className="meter-track">
        <div className="meter-fill" style={{ width: `${Math.round(value * 100)}%` }} />
      </div>
      <span className="meter-value">{value.toFixed(2)}</span>
    </div>
  );
}

const RECOMMENDATION_WORDS: Record<string, string> = {
  marl: "multi-agent RL is worth it",
  supervised: "supervised learning is enough (a classifier, or imitation of an expert)",
  rules: "start with rules / a fixed workflow",
};

/** Complexity advisor (docs/design.md#complexity-advisor): does this workflow need multi-agent RL, or would rules do? */
export function AdvisorPanel() {
  const report = useDesigner((s) => s.report);
  const agents = useDesigner((s) => s.spec.agents.length);
  const advice = report?.advice;
  return (
    <div className="advisor" data-testid="advisor">
      <h2>Complexity advisor</h2>
      <p className="hint">
        MARL pays off when decisions are dense, outcomes uncertain and short-term and long-term rewards conflict;
        otherwise rules or a fixed workflow are simpler and steadier.
      </p>
      {agents > 5 && (
        <p className="warning-box" role="alert">
          {agents} agents: teams of 2–5 usually balance specialisation against coordination cost best. Merge roles unless the task is very large.
        </p>
      )}
      {!advice ? (
        <p className="empty-state">Fix the errors in the Problems list to get advice.</p>
      ) : (
        <>
          <Meter label="Decision density" value={advice.decision_density} hint="How many steps make non-trivial, state-dependent choices." />
          <Meter label="Uncertainty" value={advice.uncertainty} hint="How variable each step's output and the environment are." />
          <Meter label="Reward conflict" value={advice.reward_conflict} hint="Whether good final results need agents to give up short-term efficiency." />
          <p className={`recommendation ${advice.recommendation}`} data-testid="recommendation">
            Recommendation: {RECOMMENDATION_WORDS[advice.recommendation] ?? advice.recommendation} (score{" "}
            {advice.score.toFixed(2)})
          </p>
          <ul className="reasons">
            {advice.reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
