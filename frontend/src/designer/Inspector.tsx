import { AgentInspector } from "./AgentInspector";
import { EdgeInspector } from "./EdgeInspector";
import { effectiveCatalogue } from "./IntentCatalogue";
import { reverseLink } from "./linkPairs";
import type { SpecDefaults } from "./specDefaults";
import { useDesigner } from "./store";
import type { EnvParam, IntentInfo, RoleInfo } from "./types";

interface Props {
  roles: RoleInfo[];
  /** The spec's defaults (the catalogue's), for the settings an agent leaves out. */
  defaults: SpecDefaults;
  /** Per environment: the intents an agent may own. */
  intents?: Record<string, IntentInfo[]>;
  /** The workflow and its latest published version (flags prompt edits that need retraining). */
  workflowId?: number;
  publishedVersion?: number | null;
  /** Per environment whose policy reads prompts: the parameter under which prompts route work. */
  promptRouting?: Record<string, string>;
  /** Per environment: its parameters and their defaults (whether that parameter is on). */
  environments?: Record<string, EnvParam[]>;
}

/** Shows the inspector of whatever is selected on the canvas (to read only, where the role cannot edit). */
export function Inspector({ roles, defaults, intents, workflowId, publishedVersion, promptRouting, environments }: Props) {
  const selection = useDesigner((s) => s.selection);
  const spec = useDesigner((s) => s.spec);
  const environment = spec.environment?.name ?? "";
  const param = promptRouting?.[environment] ?? null;
  const declared = environments?.[environment]?.find((p) => p.name === param)?.default;
  const routing = { param, on: param !== null && (spec.environment?.params?.[param] ?? declared) === true };
  const readOnly = useDesigner((s) => s.readOnly);
  if (selection?.kind === "agent") {
    const agent = spec.agents.find((a) => a.id === selection.id);
    if (agent)
      return (
        <AgentInspector
          key={agent.id}
          agent={agent}
          roles={roles}
          defaults={defaults}
          readOnly={readOnly}
          intents={effectiveCatalogue(intents?.[spec.environment?.name ?? ""], spec.environment?.params)}
          workflowId={workflowId}
          publishedVersion={publishedVersion}
          promptRouting={routing}
        />
      );
  }
  if (selection?.kind === "edge") {
    const edge = spec.edges?.[selection.index];
    if (edge) return <EdgeInspector edge={edge} index={selection.index} reverse={reverseLink(spec.edges ?? [], selection.index)} />;
  }
  if (readOnly) {
    return (
      <div className="inspector empty-state">
        <h2>Inspector</h2>
        <p>Select an agent or an edge on the canvas to read its settings here.</p>
      </div>
    );
  }
  return (
    <div className="inspector empty-state">
      <h2>Inspector</h2>
      <p>Select an agent or an edge on the canvas to edit it here.</p>
      <p className="hint">Connect agents by dragging from a dot to another agent: the right dot makes a workflow dependency (solid arrow), the bottom dot a communication link (dashed).</p>
    </div>
  );
}
