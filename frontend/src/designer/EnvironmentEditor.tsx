import { IntentCatalogueEditor } from "./IntentCatalogue";
import { ListField } from "./ListField";
import { NumberField } from "./NumberField";
import { TicketsField, paramsForDataset } from "./TicketsField";
import { useDesigner } from "./store";
import type { Catalogue, EnvParam, Json } from "./types";

/** "delayed_reward" → "Delayed reward". */
export function paramLabel(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** How a choice reads in a select: lists as their items. */
function choiceText(choice: Json): string {
  return Array.isArray(choice) ? choice.join(" + ") : String(choice);
}

/** The params with one value set; a value equal to the default is dropped, so the spec keeps only changes. */
export function withParam(params: Record<string, Json>, param: EnvParam, value: Json | undefined): Record<string, Json> {
  const next = { ...params };
  if (value === undefined || JSON.stringify(value) === JSON.stringify(param.default)) delete next[param.name];
  else next[param.name] = value;
  return next;
}

interface FieldProps {
  param: EnvParam;
  value: Json;
  onChange: (value: Json | undefined) => void;
}

/** One parameter, entered the way its kind asks: checkbox, number, fixed choice, list (of names or of lines) or text. */
function ParamField({ param, value, onChange }: FieldProps) {
  const label = paramLabel(param.name);
  switch (param.kind) {
    case "bool":
      return (
        <label className="field check" title={param.help}>
          <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          <span>{label}</span>
        </label>
      );
    case "integer":
    case "number":
      return <NumberField path={`$.environment.params.${param.name}`} label={label} hint={param.help} integer={param.kind === "integer"} value={typeof value === "number" ? value : undefined} onChange={onChange} />;
    case "choice":
      return (
        <label className="field" title={param.help}>
          <span>{label}</span>
          <select aria-label={label} value={JSON.stringify(value)} onChange={(e) => onChange(JSON.parse(e.target.value) as Json)}>
            {param.choices.map((choice) => (
              <option key={JSON.stringify(choice)} value={JSON.stringify(choice)}>
                {choiceText(choice)}
              </option>
            ))}
          </select>
        </label>
      );
    case "list":
    case "lines":
      return <ListField label={label} hint={param.help} kind={param.kind} value={value} onChange={onChange} />;
    default:
      return (
        <label className="field" title={param.help}>
          <span>{label}</span>
          <input value={typeof value === "string" ? value : ""} placeholder={param.default === null ? "default" : String(param.default)} onChange={(e) => onChange(e.target.value || undefined)} />
        </label>
      );
  }
}

/** The environment the team trains in and its parameters, as a form built from the environment's own descriptions. */
export function EnvironmentEditor({ catalogue, project }: { catalogue: Catalogue; project?: number }) {
  const environment = useDesigner((s) => s.spec.environment);
  const setSection = useDesigner.getState().setSection;
  if (!environment?.name) return <p className="muted">This workflow is design-only: it names no environment to train in.</p>;
  const described = catalogue.environments[environment.name] ?? [];
  const params = environment.params ?? {};
  const intents = catalogue.intents?.[environment.name]; // the environment's own catalogue (agents own intents)
  const save = (next: Record<string, Json>) => {
    const { params: _dropped, ...rest } = environment;
    setSection("environment", Object.keys(next).length ? { ...rest, params: next } : rest);
  };

  return (
    <div className="environment-editor">
      <h2>Environment: {environment.name}</h2>
      {described.length === 0 ? (
        <p className="muted">This environment describes no parameters; set them in the spec.</p>
      ) : (
        <>
          <p className="muted">Only settings changed from the default are saved.</p>
          <fieldset>
            {described.map((param) => (
              <div key={param.name} className="env-param">
                {param.name === "intents" && intents ? (
                  <IntentCatalogueEditor shipped={intents} value={params.intents} onChange={(value) => save(withParam(params, param, value))} />
                ) : param.name === "tickets" && project !== undefined && param.kind === "text" ? (
                  <TicketsField
                    project={project}
                    label={paramLabel(param.name)}
                    hint={param.help}
                    value={typeof params.tickets === "string" ? params.tickets : ""}
                    placeholder={String(param.default)}
                    onChange={(value) => save(withParam(params, param, value))}
                    shipped={intents?.map((i) => i.name)}
                    onDataset={(tickets, declared) => {
                      // only an environment with an intent catalogue of its own takes the dataset's
                      const next = paramsForDataset(params, tickets, described.some((p) => p.name === "intents") ? declared : [], intents?.map((i) => i.name));
                      save(next.params);
                      return next.adopted;
                    }}
                  />
                ) : (
                  <ParamField param={param} value={params[param.name] ?? param.default} onChange={(value) => save(withParam(params, param, value))} />
                )}
                <p className="hint">{param.help}</p>
              </div>
            ))}
          </fieldset>
          <button type="button" disabled={Object.keys(params).length === 0} onClick={() => save({})}>
            Reset to defaults
          </button>
        </>
      )}
    </div>
  );
}
