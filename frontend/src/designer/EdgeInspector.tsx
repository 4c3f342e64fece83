import { useDesigner } from "./store";
import type { EdgeKind, EdgeSpec } from "./types";

interface Props {
  edge: EdgeSpec;
  index: number;
  /** The communication link the other way between the same agents, drawn with this one as one link. */
  reverse?: number;
}

/** One edge: its ends and its kind (a workflow dependency or an allowed communication link). A two-way
 * pair of communication links is shown as one, with each direction deletable on its own. */
export function EdgeInspector({ edge, index, reverse }: Props) {
  const { setEdgeKind, deleteSelection, select } = useDesigner.getState();
  const readOnly = useDesigner((s) => s.readOnly);
  if (reverse !== undefined) {
    // Deleting one direction keeps the other selected (its index moves down when it came after).
    const remove = (gone: number, kept: number) => {
      select({ kind: "edge", index: gone });
      deleteSelection();
      select({ kind: "edge", index: kept > gone ? kept - 1 : kept });
    };
    return (
      <div className="inspector" data-testid="edge-inspector">
        <h2>Edge</h2>
        <p>
          <strong>{edge.source}</strong> ↔ <strong>{edge.target}</strong> (two links)
        </p>
        <p className="hint">Communication links both ways between these agents, drawn as one line.</p>
        <ul className="edge-directions">
          {[
            [index, reverse, edge.source, edge.target],
            [reverse, index, edge.target, edge.source],
          ].map(([gone, kept, from, to]) => (
            <li key={`${from}-${to}`}>
              {from} → {to}{" "}
              {!readOnly && (
                <button className="danger" aria-label={`Delete the link ${from} → ${to}`} onClick={() => remove(Number(gone), Number(kept))}>
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <div className="inspector" data-testid="edge-inspector">
      <h2>Edge</h2>
      <p>
        <strong>{edge.source}</strong> → <strong>{edge.target}</strong>
      </p>
      <label className="field" title="Dependencies order the workflow's steps (they must not form a cycle); communication links say who may send messages to whom.">
        <span>Kind</span>
        <select value={edge.kind ?? "communication"} onChange={(e) => setEdgeKind(index, e.target.value as EdgeKind)}>
          <option value="dependency">workflow dependency</option>
          <option value="communication">communication link</option>
        </select>
      </label>
      <button className="danger" onClick={deleteSelection}>
        Delete edge
      </button>
    </div>
  );
}
