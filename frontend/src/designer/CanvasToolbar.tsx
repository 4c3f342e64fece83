import { useReactFlow } from "@xyflow/react";
import { FIT_VIEW } from "./Canvas";
import { LearnedOverlayControls } from "./LearnedOverlay";
import { useDesigner } from "./store";

/** Editing commands for the canvas, each with its keyboard shortcut in the tooltip. */
export function CanvasToolbar() {
  const { fitView } = useReactFlow();
  const canUndo = useDesigner((s) => s.past.length > 0);
  const canRedo = useDesigner((s) => s.future.length > 0);
  const hasSelection = useDesigner((s) => s.selection !== null);
  const agentSelected = useDesigner((s) => s.selection?.kind === "agent");
  const hasClipboard = useDesigner((s) => s.clipboard !== null);
  const readOnly = useDesigner((s) => s.readOnly);
  const { undo, redo, deleteSelection, copySelection, paste, layoutAll } = useDesigner.getState();

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
          window.setTimeout(() => fitView({ ...FIT_VIEW, duration: 300 }), 50);
        }}
        disabled={readOnly}
        title="Arrange agents left to right along their dependencies"
      >
        Auto-layout
      </button>
      <button onClick={() => fitView({ ...FIT_VIEW, duration: 300 })} title="Zoom to fit all agents">
        Zoom to fit
      </button>
      <LearnedOverlayControls />
      <span className="edge-kind" title="Which dot you drag from decides the kind of edge">
        Connect: <span className="legend-dependency">right dot → dependency</span>
        <span className="legend-communication">bottom dot → communication link</span>
      </span>
    </div>
  );
}
