import { useDesigner } from "./store";
import type { Problem } from "./types";

interface Props {
  validating: boolean;
}

/** The server validator's errors (block publishing) and warnings (advice); a click selects the culprit. */
export function ProblemsList({ validating }: Props) {
  const report = useDesigner((s) => s.report);
  const spec = useDesigner((s) => s.spec);
  const select = useDesigner.getState().select;

  const focus = (p: Problem) => {
    const agent = /^\$\.agents\[(\d+)\]/.exec(p.path);
    const edge = /^\$\.edges\[(\d+)\]/.exec(p.path);
    if (agent && spec.agents[Number(agent[1])]) select({ kind: "agent", id: spec.agents[Number(agent[1])].id });
    else if (edge && spec.edges?.[Number(edge[1])]) select({ kind: "edge", index: Number(edge[1]) });
  };
  const describe = (p: Problem) => {
    const agent = /^\$\.agents\[(\d+)\]/.exec(p.path);
    const id = agent ? spec.agents[Number(agent[1])]?.id : undefined;
    return id ? `${id}${p.path.slice(agent![0].length)}` : p.path.replace(/^\$\.?/, "") || "spec";
  };

  const errors = report?.errors ?? [];
  const warnings = report?.warnings ?? [];
  return (
    <section className="problems" aria-label="Problems" data-testid="problems">
      <h2>
        Problems{" "}
        {report === null ? (
          <span className="badge">checking…</span>
        ) : errors.length ? (
          <span className="badge bad" data-testid="error-count">{errors.length} error{errors.length > 1 ? "s" : ""}</span>
        ) : (
          <span className="badge good" data-testid="error-count">valid</span>
        )}
        {warnings.length > 0 && <span className="badge warn">{warnings.length} warning{warnings.length > 1 ? "s" : ""}</span>}
        {validating && <span className="hint"> checking…</span>}
      </h2>
      {errors.length === 0 && warnings.length === 0 && report && <p className="hint">No problems: this draft can be published.</p>}
      <ul>
        {errors.map((p, i) => (
          <li key={`e${i}`} className="problem error-item" onClick={() => focus(p)} title="Click to select">
            <code>{describe(p)}</code> {p.message}
          </li>
        ))}
        {warnings.map((p, i) => (
          <li key={`w${i}`} className="problem warning-item" onClick={() => focus(p)}>
            <code>{describe(p)}</code> {p.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
