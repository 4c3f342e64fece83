import { useReactFlow } from "@xyflow/react";
import { useDesigner } from "./store";

/** Editing commands for the canvas, each with its keyboard shortcut in the tooltip. */
export function CanvasToolbar() {
  const { fitView } = useReactFlow();
  const canUndo = useDesigner((s) => s.past.length > 0);
  const canRedo = useDesigner((s) => s.future.length > 0);
  const hasSelection = useDesigner((s) => s.selection !== null);
  const agentSelected = useDesigner((s) => s.selection?.kind === "agent");
  const hasClipboard = useDesigner((s) => s.clipboard !== null);
  const edgeKind = useDesigner((s) => s.edgeKind);
  const readOnly = useDesigner((s) => s.readOnly);
  const { undo, redo, deleteSelection, copySelection, paste, layoutAll, setNewEdgeKind } = useDesigner.getState();

  return (
    <div className="canvas-toolbar" role="toolbar" aria-label="Canvas tools">
      <button onClick={undo} disabled={!canUndo || readOnly} title="Undo (Ctrl+Z)">
        Undo
      </button>
      <button onClick={redo} disabled={!canRedo || readOnly} title="Redo (Ctrl+Shift+Z or Ctrl+Y)">
        Redo
      </button>
      <button onClick={copySelection} disabled={!agentSelected} title="Copy the selected agent (Ctrl+C)">
        Copy
      </button>
      <button onClick={paste} disabled={!hasClipboard || readOnly} title="Paste a copy of the copied agent (Ctrl+V)">
        Paste
      </button>
      <button onClick={deleteSelection} disabled={!hasSelection || readOnly} title="Delete the selected agent or edge (Delete)">
        Delete
      </button>
      <button
        onClick={() => {
          layoutAll();
          window.setTimeout(() => fitView({ duration: 300 }), 50);
        }}
        disabled={readOnly}
        title="Arrange agents left to right along their dependencies"
      >
        Auto-layout
      </button>
      <button onClick={() => fitView({ duration: 300 })} title="Zoom to fit all agents">
        Zoom to fit
      </button>
      <span className="edge-kind" title="The kind of edge a new connection creates">
        New edges:
        <label>
          <input
            type="radio"
            name="edge-kind"
            checked={edgeKind === "dependency"}
            onChange={() => setNewEdgeKind("dependency")}
          />
          <span className="legend-dependency">dependency</span>
        </label>
        <label>
          <input
            type="radio"
            name="edge-kind"
            checked={edgeKind === "communication"}
            onChange={() => setNewEdgeKind("communication")}
          />
          <span className="legend-communication">communication</span>
        </label>
      </span>
    </div>
  );
}
