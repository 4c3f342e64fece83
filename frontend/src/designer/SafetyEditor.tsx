import { NumberField } from "./NumberField";
import { filled, specDefaults } from "./specDefaults";
import { useDesigner } from "./store";
import type { Catalogue, FallbackSection } from "./types";

/** Circuit breaker thresholds and the rule-based fallback the team switches to when it trips. */
export function SafetyEditor({ catalogue }: { catalogue: Catalogue }) {
  const defaults = specDefaults(catalogue);
  const breaker = useDesigner((s) => s.spec.circuit_breaker) ?? {};
  const shown = filled(breaker, defaults.circuit_breaker);
  const fallback = useDesigner((s) => s.spec.fallback) ?? {};
  const kind = fallback.kind ?? defaults.fallback.kind;
  const agentIds = useDesigner((s) => s.spec.agents.map((a) => a.id).join(",")).split(",").filter(Boolean);
  const setSection = useDesigner.getState().setSection;
  const rules = fallback.rules ?? [];
  const saveBreaker = (patch: Partial<typeof breaker>) => setSection("circuit_breaker", { ...breaker, ...patch });
  const saveFallback = (patch: Partial<FallbackSection>) => setSection("fallback", { kind, rules, ...patch });

  return (
    <div className="safety-editor">
      <h2>Circuit breaker</h2>
      <p className="hint">After several tickets in a row with a low-confidence decision the team hands over to the fallback rules, then retries after a cooldown.</p>
      <fieldset>
        <NumberField path="$.circuit_breaker.confidence_threshold" label="Low confidence below" min={0} max={1} step={0.05} value={shown.confidence_threshold} onChange={(confidence_threshold) => saveBreaker({ confidence_threshold })} />
        <NumberField path="$.circuit_breaker.consecutive_low" label="Consecutive low tickets" integer min={1} value={shown.consecutive_low} onChange={(consecutive_low) => saveBreaker({ consecutive_low })} />
        <NumberField path="$.circuit_breaker.cooldown_s" label="Cooldown (seconds)" min={0} value={shown.cooldown_s} onChange={(cooldown_s) => saveBreaker({ cooldown_s })} />
        <NumberField path="$.circuit_breaker.step_limit" label="Step limit per task" integer min={1} value={shown.step_limit ?? undefined} hint="Empty: the environment's longest episode plus a margin" onChange={(step_limit) => saveBreaker({ step_limit })} />
      </fieldset>

      <h2>Fallback</h2>
      <label className="field" title="What runs while the breaker is open.">
        <span>Fallback</span>
        <select aria-label="Fallback" value={kind} onChange={(e) => saveFallback({ kind: e.target.value as FallbackSection["kind"] })}>
          <option value="none">none</option>
          <option value="keyword_router">keyword router</option>
          <option value="scripted">scripted team</option>
        </select>
      </label>
      {fallback.kind === "keyword_router" && (
        <>
          <p className="hint">Each rule sends a task that contains one of its keywords to an agent.</p>
          {rules.length === 0 && <p className="empty-state">No rules yet.</p>}
          {rules.map((rule, i) => (
            <div className="rule" key={i}>
              <label className="field">
                <span>Keywords</span>
                <input
                  value={rule.keywords.join(", ")}
                  placeholder="refund, return"
                  onChange={(e) =>
                    saveFallback({
                      rules: rules.map((r, j) => (j === i ? { ...r, keywords: e.target.value.split(",").map((k) => k.trim()).filter(Boolean) } : r)),
                    })
                  }
                />
              </label>
              <label className="field">
                <span>Route to</span>
                <select aria-label="Route to" value={rule.route_to} onChange={(e) => saveFallback({ rules: rules.map((r, j) => (j === i ? { ...r, route_to: e.target.value } : r)) })}>
                  {!agentIds.includes(rule.route_to) && <option value={rule.route_to}>{rule.route_to || "choose…"}</option>}
                  {agentIds.map((id) => (
                    <option key={id}>{id}</option>
                  ))}
                </select>
              </label>
              <button className="icon" title="Remove this rule" onClick={() => saveFallback({ rules: rules.filter((_, j) => j !== i) })}>
                ×
              </button>
            </div>
          ))}
          <button onClick={() => saveFallback({ rules: [...rules, { keywords: [], route_to: agentIds[0] ?? "" }] })}>Add rule</button>
        </>
      )}
    </div>
  );
}
