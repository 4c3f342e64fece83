import { useDesigner } from "./store";
import type { EdgeKind, EdgeSpec } from "./types";

interface Props {
  edge: EdgeSpec;
  index: number;
}

/** One edge: its ends and its kind (a workflow dependency or an allowed communication link). */
export function EdgeInspector({ edge, index }: Props) {
  const { setEdgeKind, deleteSelection } = useDesigner.getState();
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
