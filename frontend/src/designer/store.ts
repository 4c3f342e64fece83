/** The designer's single store (zustand): the draft spec, node positions, selection and history.
 *
 * Components render from it and call its actions; none keeps its own copy of the spec. Every edit
 * goes through `edit`, which snapshots the previous state for undo and bumps `revision` (autosave
 * and live validation watch it).
 */
import { create } from "zustand";
import { autoLayout } from "./autoLayout";
import type {
  AgentSpec,
  EdgeKind,
  EdgeSpec,
  Layout,
  Position,
  RoleInfo,
  SpecDiff,
  TeamSpec,
  ValidationReport,
} from "./types";

export type Selection = { kind: "agent"; id: string } | { kind: "edge"; index: number } | null;

interface Snapshot {
  spec: TeamSpec;
  layout: Layout;
}

const HISTORY_LIMIT = 100;
const ID_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

export interface DesignerState {
  spec: TeamSpec;
  layout: Layout;
  selection: Selection;
  past: Snapshot[];
  future: Snapshot[];
  clipboard: { agent: AgentSpec; position: Position } | null;
  revision: number;
  report: ValidationReport | null;
  diff: SpecDiff | null;
  readOnly: boolean;
  dragOrigin: Snapshot | null;

  load: (spec: TeamSpec, layout: Layout, readOnly: boolean) => void;
  replace: (spec: TeamSpec, layout: Layout) => void;
  edit: (change: (draft: Snapshot) => void) => void;
  select: (selection: Selection) => void;
  addAgent: (role: RoleInfo, position: Position) => string;
  updateAgent: (id: string, patch: Partial<AgentSpec>) => void;
  renameAgent: (id: string, newId: string) => string | null;
  connect: (source: string, target: string, kind: EdgeKind) => void;
  setEdgeKind: (index: number, kind: EdgeKind) => void;
  moveAgent: (id: string, position: Position, done: boolean) => void;
  deleteSelection: () => void;
  copySelection: () => void;
  paste: () => void;
  setSection: <K extends keyof TeamSpec>(key: K, value: TeamSpec[K]) => void;
  undo: () => void;
  redo: () => void;
  layoutAll: () => void;
  setReport: (report: ValidationReport | null) => void;
  setDiff: (diff: SpecDiff | null) => void;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Drops what the canvas cannot draw (a draft saved through the API may hold anything JSON allows). */
export function sanitize(raw: unknown): TeamSpec {
  const spec = (isObject(raw) ? { ...raw } : {}) as TeamSpec;
  spec.agents = (Array.isArray(spec.agents) ? spec.agents : []).filter(
    (a): a is AgentSpec => isObject(a) && typeof a.id === "string",
  );
  if (spec.edges !== undefined) {
    spec.edges = (Array.isArray(spec.edges) ? spec.edges : []).filter(
      (e): e is EdgeSpec => isObject(e) && typeof e.source === "string" && typeof e.target === "string",
    );
  }
  for (const [section, list] of [
    ["reward", "terms"],
    ["evolution", "phases"],
    ["fallback", "rules"],
  ] as const) {
    const value = spec[section] as Record<string, unknown> | undefined;
    if (value !== undefined && !isObject(value)) delete spec[section];
    else if (value && value[list] !== undefined && !Array.isArray(value[list])) spec[section] = { ...value, [list]: [] };
  }
  return spec;
}

/** A fresh agent id from `base` that no agent of `spec` uses yet. */
export function uniqueId(spec: TeamSpec, base: string): string {
  const stem = (base.toLowerCase().replace(/[^a-z0-9_]/g, "_").replace(/^[^a-z]+/, "") || "agent").slice(0, 34);
  const taken = new Set(spec.agents.map((a) => a.id));
  if (!taken.has(stem)) return stem;
  for (let i = 2; ; i++) if (!taken.has(`${stem}_${i}`)) return `${stem}_${i}`;
}

function newAgent(id: string, role: RoleInfo): AgentSpec {
  return {
    id,
    role: role.name,
    prompt: role.default_prompt,
    lora: { r: 4, alpha: 8, dropout: 0, target_modules: null },
    policy_head: { hidden: 64 },
    update_period: 1,
  };
}

export const useDesigner = create<DesignerState>()((set, get) => ({
  spec: { agents: [] },
  layout: {},
  selection: null,
  past: [],
  future: [],
  clipboard: null,
  revision: 0,
  report: null,
  diff: null,
  readOnly: false,
  dragOrigin: null,

  load: (raw, layout, readOnly) => {
    const spec = sanitize(raw);
    const agents = spec.agents;
    const ids = agents.map((a) => a.id);
    // Agents without a stored position (a fresh template or import) are laid out automatically.
    const missing = ids.some((id) => !layout[id]);
    const positions = missing ? { ...autoLayout(ids, spec.edges ?? []), ...layout } : layout;
    set({ spec: { ...spec, agents }, layout: positions, readOnly, past: [], future: [], selection: null, diff: null });
  },

  replace: (spec, layout) => {
    get().edit((d) => {
      d.spec = clone(spec);
      const ids = spec.agents.map((a) => a.id);
      d.layout = ids.some((id) => !layout[id]) ? { ...autoLayout(ids, spec.edges ?? []), ...layout } : clone(layout);
    });
    set({ selection: null });
  },

  edit: (change) => {
    const { spec, layout, past, readOnly } = get();
    if (readOnly) return;
    const draft = { spec: clone(spec), layout: clone(layout) };
    change(draft);
    set({
      spec: draft.spec,
      layout: draft.layout,
      past: [...past, { spec, layout }].slice(-HISTORY_LIMIT),
      future: [],
      revision: get().revision + 1,
    });
  },

  select: (selection) => set({ selection }),

  addAgent: (role, position) => {
    const id = uniqueId(get().spec, role.name === "custom" ? "custom_agent" : role.name);
    get().edit((d) => {
      d.spec.agents.push(newAgent(id, role));
      d.layout[id] = position;
    });
    set({ selection: { kind: "agent", id } });
    return id;
  },

  updateAgent: (id, patch) =>
    get().edit((d) => {
      const agent = d.spec.agents.find((a) => a.id === id);
      if (agent) Object.assign(agent, patch);
    }),

  renameAgent: (id, newId) => {
    if (newId === id) return null;
    if (!ID_PATTERN.test(newId)) return "ids are lowercase letters, digits and _, starting with a letter (max 40)";
    if (get().spec.agents.some((a) => a.id === newId)) return `another agent is already called ${newId}`;
    get().edit((d) => {
      for (const a of d.spec.agents) if (a.id === id) a.id = newId;
      for (const e of d.spec.edges ?? []) {
        if (e.source === id) e.source = newId;
        if (e.target === id) e.target = newId;
      }
      for (const r of d.spec.fallback?.rules ?? []) if (r.route_to === id) r.route_to = newId;
      if (d.layout[id]) {
        d.layout[newId] = d.layout[id];
        delete d.layout[id];
      }
    });
    set({ selection: { kind: "agent", id: newId } });
    return null;
  },

  connect: (source, target, kind) => {
    if (source === target) return;
    const edges = get().spec.edges ?? [];
    if (edges.some((e) => e.source === source && e.target === target && (e.kind ?? "communication") === kind)) return;
    get().edit((d) => {
      d.spec.edges = [...(d.spec.edges ?? []), { source, target, kind }];
    });
    set({ selection: { kind: "edge", index: edges.length } });
  },

  setEdgeKind: (index, kind) =>
    get().edit((d) => {
      const edge = d.spec.edges?.[index];
      if (edge) edge.kind = kind;
    }),

  moveAgent: (id, position, done) => {
    const { layout, spec, dragOrigin, readOnly } = get();
    if (readOnly) return;
    const origin = dragOrigin ?? { spec, layout };
    const next = { ...layout, [id]: position };
    if (!done) {
      set({ layout: next, dragOrigin: origin });
      return;
    }
    set({
      layout: next,
      dragOrigin: null,
      past: [...get().past, origin].slice(-HISTORY_LIMIT),
      future: [],
      revision: get().revision + 1,
    });
  },

  deleteSelection: () => {
    const { selection } = get();
    if (!selection) return;
    get().edit((d) => {
      if (selection.kind === "agent") {
        d.spec.agents = d.spec.agents.filter((a) => a.id !== selection.id);
        d.spec.edges = (d.spec.edges ?? []).filter((e) => e.source !== selection.id && e.target !== selection.id);
        delete d.layout[selection.id];
      } else {
        d.spec.edges = (d.spec.edges ?? []).filter((_, i) => i !== selection.index);
      }
    });
    set({ selection: null });
  },

  copySelection: () => {
    const { selection, spec, layout } = get();
    if (selection?.kind !== "agent") return;
    const agent = spec.agents.find((a) => a.id === selection.id);
    if (agent) set({ clipboard: { agent: clone(agent), position: layout[agent.id] ?? { x: 0, y: 0 } } });
  },

  paste: () => {
    const { clipboard } = get();
    if (!clipboard) return;
    const id = uniqueId(get().spec, clipboard.agent.id.replace(/_\d+$/, ""));
    const position = { x: clipboard.position.x + 40, y: clipboard.position.y + 40 };
    get().edit((d) => {
      d.spec.agents.push({ ...clone(clipboard.agent), id });
      d.layout[id] = position;
    });
    // A second paste lands further along instead of on top of the first copy.
    set({ selection: { kind: "agent", id }, clipboard: { ...clipboard, position } });
  },

  setSection: (key, value) =>
    get().edit((d) => {
      if (value === undefined) delete d.spec[key];
      else d.spec[key] = clone(value);
    }),

  undo: () => {
    const { past, future, spec, layout } = get();
    const previous = past[past.length - 1];
    if (!previous) return;
    set({
      ...previous,
      past: past.slice(0, -1),
      future: [{ spec, layout }, ...future],
      revision: get().revision + 1,
      selection: null,
    });
  },

  redo: () => {
    const { past, future, spec, layout } = get();
    const next = future[0];
    if (!next) return;
    set({ ...next, past: [...past, { spec, layout }], future: future.slice(1), revision: get().revision + 1, selection: null });
  },

  layoutAll: () =>
    get().edit((d) => {
      d.layout = autoLayout(
        d.spec.agents.map((a) => a.id),
        d.spec.edges ?? [],
      );
    }),

  setReport: (report) => set({ report }),
  setDiff: (diff) => set({ diff }),
}));

/** Problems grouped by what they are about: agent ids and edge indexes (from `$.agents[i]…`). */
export function problemTargets(spec: TeamSpec, paths: string[]): { agents: Map<string, number>; edges: Set<number> } {
  const agents = new Map<string, number>();
  const edges = new Set<number>();
  for (const path of paths) {
    const agent = /^\$\.agents\[(\d+)\]/.exec(path);
    if (agent) {
      const id = spec.agents[Number(agent[1])]?.id;
      if (id) agents.set(id, (agents.get(id) ?? 0) + 1);
    }
    const edge = /^\$\.edges\[(\d+)\]/.exec(path);
    if (edge) edges.add(Number(edge[1]));
  }
  return { agents, edges };
}

export function edgeLabel(edge: EdgeSpec): string {
  return `${edge.source} → ${edge.target} (${edge.kind ?? "communication"})`;
}
