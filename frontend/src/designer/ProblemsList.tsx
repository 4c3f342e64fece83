import { revealField } from "./fieldProblem";
import { describePath, type EditorTab, messageInWords } from "./problemWords";
import { useDesigner } from "./store";
import type { Problem } from "./types";

interface Props {
  validating: boolean;
  /** Opens a side-panel tab (a problem in the reward, schedule, … sections is fixed there). */
  openTab: (tab: EditorTab | "inspector") => void;
}

/** The server validator's errors (block publishing) and warnings (advice), in words; a click selects the
 * agent or link at fault, or opens the tab of the field at fault and puts the cursor in it. */
export function ProblemsList({ validating, openTab }: Props) {
  const report = useDesigner((s) => s.report);
  const spec = useDesigner((s) => s.spec);
  const select = useDesigner.getState().select;

  const focus = (p: Problem) => {
    const { target } = describePath(spec, p.path);
    if (!target) return;
    if (target.kind === "agent") select({ kind: "agent", id: target.id });
    else if (target.kind === "edge") select({ kind: "edge", index: target.index });
    openTab(target.kind === "tab" ? target.tab : "inspector");
    window.setTimeout(() => revealField(p.path), 50); // once the tab has rendered
  };

  const item = (p: Problem, key: string, kind: "error" | "warning") => {
    const { words, target } = describePath(spec, p.path);
    return (
      <li
        key={key}
        className={`problem ${kind}-item`}
        onClick={() => focus(p)}
        title={target ? `Click to show it (${p.path})` : p.path}
      >
        <strong className="problem-where">{words.charAt(0).toUpperCase() + words.slice(1)}</strong>:{" "}
        {messageInWords(spec, p.message)}
      </li>
    );
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
        {errors.map((p, i) => item(p, `e${i}`, "error"))}
        {warnings.map((p, i) => item(p, `w${i}`, "warning"))}
      </ul>
    </section>
  );
}
