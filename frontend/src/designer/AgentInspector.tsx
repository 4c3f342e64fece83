import { useEffect, useState } from "react";
import { ClueKindField, holdsClue } from "./AgentClue";
import { hasOwnCatalogue, promptSource, promptWarnings, shownPrompt } from "./agentPrompt";
import { IntentChecklist, type PromptRouting, REVIEWER_ROLES, RetrainFlag } from "./AgentIntents";
import { declaredIn, type DeclaredOption } from "./declaredOptions";
import { useFieldProblem } from "./fieldProblem";
import { NumberField } from "./NumberField";
import type { SpecDefaults } from "./specDefaults";
import { useDesigner } from "./store";
import type { AgentSpec, IntentInfo, RoleInfo } from "./types";

interface Props {
  agent: AgentSpec;
  roles: RoleInfo[];
  /** The spec's defaults, as the catalogue serves them (an agent's settings, the backbone). */
  defaults: SpecDefaults;
  /** The role may read but not change the workflow: fields show their values, disabled. */
  readOnly?: boolean;
  /** The environment's intent catalogue, when its agents own intents (customer service). */
  intents?: IntentInfo[];
  workflowId?: number;
  publishedVersion?: number | null;
  /** How the environment's policy reads prompts (what the inspector says a prompt edit changes). */
  promptRouting?: PromptRouting;
}

/** Everything about one agent: role, system prompt, shared backbone, LoRA adapter, policy head, update period. */
// each agent's options as the library declares them (agents/spec/nodes.py): range and description
const RANK = declaredIn("LoraSpec", "r");
const ALPHA = declaredIn("LoraSpec", "alpha");
const DROPOUT = declaredIn("LoraSpec", "dropout");
const HIDDEN = declaredIn("PolicyHeadSpec", "hidden");
const PERIOD = declaredIn("AgentSpec", "update_period");
const bounds = (option: DeclaredOption) => ({ min: option.min, max: option.max });
const hint = (option: DeclaredOption) => option.description.charAt(0).toUpperCase() + option.description.slice(1) + ".";

export function AgentInspector({
  agent,
  roles,
  defaults,
  readOnly = false,
  intents,
  workflowId,
  publishedVersion,
  promptRouting = { param: null, on: false },
}: Props) {
  const { updateAgent, renameAgent, setSection } = useDesigner.getState();
  const backbone = useDesigner((s) => s.spec.backbone) ?? {};
  const environment = useDesigner((s) => s.spec.environment?.name);
  const [idText, setIdText] = useState(agent.id);
  const [idError, setIdError] = useState<string | null>(null);
  useEffect(() => {
    setIdText(agent.id);
    setIdError(null);
  }, [agent.id]);
  const lora = { ...defaults.agent.lora, ...(agent.lora ?? {}) };
  const role = roles.find((r) => r.name === agent.role);
  const agentIndex = useDesigner.getState().spec.agents.findIndex((a) => a.id === agent.id);
  const promptPath = `$.agents[${agentIndex}].prompt`;
  const promptProblem = useFieldProblem(promptPath);
  const report = useDesigner((s) => s.report);
  const ownCatalogue = useDesigner((s) => hasOwnCatalogue(s.spec));
  const specialist = !!intents && !REVIEWER_ROLES.includes(agent.role);
  const prompt = shownPrompt(agent, report);
  const source = promptSource(agent, role, report);
  const stale = promptWarnings(report, agentIndex);

  return (
    <div className="inspector" data-testid="agent-inspector">
      <h2>Agent {agent.id}</h2>
      {readOnly && <p className="hint read-only-note">Your role can read this agent's settings but not change them.</p>}
      <label className="field" title="Unique id: lowercase letters, digits and _. Edges follow a rename.">
        <span>Id</span>
        <input
          value={idText}
          onChange={(e) => setIdText(e.target.value)}
          onBlur={() => setIdError(renameAgent(agent.id, idText.trim()))}
          onKeyDown={(e) => e.key === "Enter" && (e.target as HTMLInputElement).blur()}
        />
      </label>
      {idError && <p className="error">{idError}</p>}
      <label className="field" title={role?.description}>
        <span>Role</span>
        <select value={agent.role} onChange={(e) => updateAgent(agent.id, { role: e.target.value })}>
          {!role && <option value={agent.role}>{agent.role} (unknown)</option>}
          {roles.map((r) => (
            <option key={r.name} value={r.name}>
              {r.name.replaceAll("_", " ")}
            </option>
          ))}
        </select>
      </label>
      {role && <p className="hint">{role.description}</p>}
      <label
        className={promptProblem ? "field column has-problem" : "field column"}
        title={promptProblem ?? "The agent's instructions; required."}
        data-path={promptPath}
      >
        <span>System prompt</span>
        <textarea
          rows={readOnly ? Math.min(16, Math.max(5, Math.ceil(prompt.length / 40))) : 5}
          value={prompt}
          placeholder="Describe what this agent does and whom it works with."
          onChange={(e) => updateAgent(agent.id, { prompt: e.target.value })}
          data-testid="agent-prompt"
        />
      </label>
      {source && (
        <p className="hint" data-testid="prompt-source">
          {source}
        </p>
      )}
      {stale.map((message) => (
        <p className="warning-box" key={message} data-testid="prompt-warning">
          {message}
        </p>
      ))}
      {!readOnly && specialist && ownCatalogue && agent.prompt !== undefined ? (
        <button className="link" onClick={() => updateAgent(agent.id, { prompt: undefined })}>
          Write it from its intents
        </button>
      ) : (
        !readOnly &&
        role &&
        role.default_prompt &&
        agent.prompt !== undefined &&
        agent.prompt !== role.default_prompt && (
          <button className="link" onClick={() => updateAgent(agent.id, { prompt: role.default_prompt })}>
            Use the role's default prompt
          </button>
        )
      )}

      <RetrainFlag agent={agent} workflowId={workflowId} version={publishedVersion} routing={promptRouting} />
      {intents && !REVIEWER_ROLES.includes(agent.role) && (
        <IntentChecklist agent={agent} index={agentIndex} catalogue={intents} readOnly={readOnly} role={role} />
      )}
      {holdsClue(environment, agent) && <ClueKindField agent={agent} index={agentIndex} readOnly={readOnly} />}

      <fieldset>
        <legend title="One frozen transformer is shared by every agent of the team.">Backbone (shared by all agents)</legend>
        <label className="field" title='"default" is all-MiniLM-L6-v2; or the path of a local Hugging Face model directory.'>
          <span>Model</span>
          <input
            value={backbone.model ?? defaults.backbone.model}
            onChange={(e) => setSection("backbone", { ...backbone, model: e.target.value })}
          />
        </label>
        <label className="field" title="How a sentence becomes one vector.">
          <span>Pooling</span>
          <select
            value={backbone.pooling ?? defaults.backbone.pooling}
            onChange={(e) => setSection("backbone", { ...backbone, pooling: e.target.value as "mean" | "cls" | "last" })}
          >
            <option value="mean">mean</option>
            <option value="cls">cls</option>
            <option value="last">last (causal LM)</option>
          </select>
        </label>
      </fieldset>

      <fieldset>
        <legend title="The agent's own small adapter on the shared backbone ('skill DNA').">LoRA adapter</legend>
        <NumberField label="Rank r" integer {...bounds(RANK)} value={lora.r} hint={hint(RANK)} onChange={(r) => updateAgent(agent.id, { lora: { ...lora, r } })} />
        <NumberField label="Alpha" {...bounds(ALPHA)} value={lora.alpha} hint={hint(ALPHA)} onChange={(alpha) => updateAgent(agent.id, { lora: { ...lora, alpha } })} />
        <NumberField label="Dropout" {...bounds(DROPOUT)} step={0.05} value={lora.dropout} hint={hint(DROPOUT)} onChange={(dropout) => updateAgent(agent.id, { lora: { ...lora, dropout } })} />
        <label className="field" title="Comma-separated module names; empty = the architecture's attention key/value projections.">
          <span>Target modules</span>
          <input
            value={(lora.target_modules ?? []).join(", ")}
            placeholder="default: key/value projections"
            onChange={(e) => {
              const names = e.target.value.split(",").map((s) => s.trim()).filter(Boolean);
              updateAgent(agent.id, { lora: { ...lora, target_modules: names.length ? names : null } });
            }}
          />
        </label>
      </fieldset>

      <fieldset>
        <legend>Policy and evolution</legend>
        <NumberField
          label="Policy head hidden units"
          integer
          {...bounds(HIDDEN)}
          value={agent.policy_head?.hidden ?? defaults.agent.policy_head.hidden}
          hint={hint(HIDDEN)}
          onChange={(hidden) => updateAgent(agent.id, { policy_head: { hidden } })}
        />
        <NumberField
          label="Update period"
          integer
          {...bounds(PERIOD)}
          value={agent.update_period ?? defaults.agent.update_period}
          hint={hint(PERIOD)}
          onChange={(update_period) => updateAgent(agent.id, { update_period })}
        />
      </fieldset>
    </div>
  );
}
