import type { Json, SpecDiff } from "./types";

function short(value: Json): string {
  const text = JSON.stringify(value);
  return text === undefined ? "" : text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** A version comparison: agents and edges added/removed/changed, then every changed field. */
export function DiffView({ diff, onClose }: { diff: SpecDiff; onClose: () => void }) {
  const label = (ref: string) => (ref === "draft" ? "the draft" : `version ${ref}`);
  return (
    <div className="diff-view" data-testid="diff-view">
      <h3>
        Changes from {label(diff.base)} to {label(diff.target)}{" "}
        <button className="link" onClick={onClose}>
          close
        </button>
      </h3>
      {diff.changes.length === 0 && <p className="hint">No differences.</p>}
      <div className="chips">
        {diff.agents.added.map((a) => (
          <span key={`a${a}`} className="chip added">+ {a}</span>
        ))}
        {diff.agents.removed.map((a) => (
          <span key={`r${a}`} className="chip removed">− {a}</span>
        ))}
        {diff.agents.changed.map((a) => (
          <span key={`c${a}`} className="chip changed">~ {a}</span>
        ))}
        {diff.edges.added.map((e) => (
          <span key={`ea${e}`} className="chip added">+ {e}</span>
        ))}
        {diff.edges.removed.map((e) => (
          <span key={`er${e}`} className="chip removed">− {e}</span>
        ))}
      </div>
      {diff.agents.added.length + diff.agents.changed.length > 0 && (
        <p className="hint">Added and changed agents are outlined on the canvas.</p>
      )}
      <table className="changes">
        <tbody>
          {diff.changes.map((c, i) => (
            <tr key={i} className={c.kind}>
              <td>
                <code>{c.path.replace(/^\$\.?/, "")}</code>
              </td>
              <td className="before">{c.kind === "added" ? "" : short(c.before)}</td>
              <td className="after">{c.kind === "removed" ? "" : short(c.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
