import type { IntentInfo, Json } from "./types";

/** One intent a spec declares in `environment.params.intents` (agents/envs/customer_service/catalogue.py). */
export interface DeclaredIntent {
  name: string;
  description?: string;
  keywords?: string[];
}

function declared(value: Json | undefined): DeclaredIntent[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is Record<string, Json> => typeof item === "object" && item !== null && !Array.isArray(item)).map((item) => ({
    name: typeof item.name === "string" ? item.name : "",
    ...(typeof item.description === "string" ? { description: item.description } : {}),
    ...(Array.isArray(item.keywords) ? { keywords: item.keywords.filter((k): k is string => typeof k === "string") } : {}),
  }));
}

/** The intents an agent may own: the spec's own catalogue when it declares one (a shipped intent named alone
 * keeps the environment's description), else the environment's. */
export function effectiveCatalogue(shipped: IntentInfo[] | undefined, params: Record<string, Json> | undefined): IntentInfo[] | undefined {
  const own = declared(params?.intents);
  if (!own.length) return shipped;
  const known = new Map((shipped ?? []).map((i) => [i.name, i.description]));
  return own.filter((i) => i.name).map((i) => ({ name: i.name, description: i.description ?? known.get(i.name) ?? "" }));
}

/** The catalogue with one more intent: a spec that declares none first lists the environment's by name. */
export function withNewIntent(shipped: IntentInfo[], value: Json | undefined, intent: DeclaredIntent): DeclaredIntent[] {
  const own = declared(value);
  const base = own.length ? own : shipped.map((i) => ({ name: i.name }));
  return [...base, intent];
}

interface EditorProps {
  shipped: IntentInfo[];
  value: Json | undefined;
  onChange: (value: Json | undefined) => void;
}

/** The intent catalogue as rows (name, description, keywords) and a button to add one; tick the new intent on
 * a specialist (its inspector lists the catalogue) to give it to them. */
export function IntentCatalogueEditor({ shipped, value, onChange }: EditorProps) {
  const own = declared(value);
  const rows: DeclaredIntent[] = own.length ? own : shipped.map((i) => ({ name: i.name, description: i.description }));
  const save = (next: DeclaredIntent[]) => onChange(next.length ? (next as unknown as Json) : undefined);
  const edit = (k: number, change: Partial<DeclaredIntent>) => save(rows.map((row, i) => (i === k ? { ...row, ...change } : row)));
  const shippedNames = new Set(shipped.map((i) => i.name));
  return (
    <fieldset className="intent-catalogue" data-path="$.environment.params.intents">
      <legend>Intent catalogue</legend>
      {!own.length && <p className="hint">The environment's intents. Add one to declare a catalogue of your own.</p>}
      {rows.map((row, k) => (
        <div key={k} className="intent-row" data-testid="catalogue-intent">
          <input aria-label={`Intent ${k + 1} name`} value={row.name} placeholder="name_in_lower_case" onChange={(e) => edit(k, { name: e.target.value })} disabled={!own.length} />
          <input
            aria-label={`Intent ${k + 1} description`}
            value={row.description ?? ""}
            placeholder={shippedNames.has(row.name) ? "as shipped" : "what this intent means"}
            onChange={(e) => edit(k, { description: e.target.value || undefined })}
            disabled={!own.length}
          />
          <input
            aria-label={`Intent ${k + 1} keywords`}
            value={(row.keywords ?? []).join(", ")}
            placeholder="keywords, optional"
            onChange={(e) => edit(k, { keywords: e.target.value.split(",").map((w) => w.trim()).filter(Boolean) })}
            disabled={!own.length}
          />
          {own.length > 0 && (
            <button type="button" className="link" onClick={() => save(rows.filter((_, i) => i !== k))}>
              Remove
            </button>
          )}
        </div>
      ))}
      <button type="button" onClick={() => onChange(withNewIntent(shipped, value, { name: "", description: "" }) as unknown as Json)}>
        Add intent
      </button>
    </fieldset>
  );
}
