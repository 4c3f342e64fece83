/** What the library declares about each spec option (agents/spec/nodes.py), read from the committed JSON
 * Schema (spec.schema.json, the catalogue's `schema`): its kind, default, range, choices and description,
 * so an editor's field takes them from there instead of typing them again. */
import schemaText from "./spec.schema.json?raw";

export interface DeclaredOption {
  kind: "integer" | "number" | "boolean" | "string" | "other";
  /** The library's default; undefined when the option has none of its own (a required field). */
  default: unknown;
  /** Bounds (an open bound as its value: an input field's min / max). */
  min?: number;
  max?: number;
  /** The values a choice may take, in the library's order. */
  choices?: string[];
  description: string;
  /** The algorithms whose training section declares the option (the schema's union branches); absent:
   * every algorithm reads it. */
  readBy?: string[];
}

type SchemaNode = { [key: string]: unknown };

const SPEC_SCHEMA = JSON.parse(schemaText) as SchemaNode;

/** The `$defs` entry a `$ref` ("#/$defs/Name") names. */
function resolve(schema: SchemaNode, node: SchemaNode): SchemaNode {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  const defs = (schema.$defs ?? {}) as Record<string, SchemaNode>;
  const found = defs[ref.replace("#/$defs/", "")];
  if (!found) throw new Error(`the spec schema has no ${ref}`);
  return found;
}

/** An option's own schema: a nullable option (`anyOf: [X, null]`) as X. */
function withoutNull(node: SchemaNode): SchemaNode {
  const branches = node.anyOf as SchemaNode[] | undefined;
  const kept = branches?.filter((b) => b.type !== "null");
  return kept?.length === 1 ? { ...kept[0], ...node, anyOf: undefined } : node;
}

const KINDS = ["integer", "number", "boolean", "string"] as const;

/** Option `key` of the spec's section `section` ("training", "communication", …) as the schema declares it.
 * The training section is a union on `algorithm` (`oneOf`, one branch per algorithm): an option is
 * described from the first branch that has it, with the algorithms whose branches have it (`readBy`) when
 * not all do; `algorithm` itself chooses among the branches. */
export function declaredOption(section: string, key: string, schema: SchemaNode = SPEC_SCHEMA): DeclaredOption {
  const sections = (schema.properties ?? {}) as Record<string, SchemaNode>;
  if (!sections[section]) throw new Error(`the spec schema has no section ${section}`);
  const owner = resolve(schema, sections[section]);
  const union = branches(schema, owner);
  if (!union) return describe(owner, key, section);
  if (key === "algorithm") {
    const first = describe(union[0].node, key, section);
    const fallback = (owner.default as SchemaNode | undefined)?.algorithm;
    return { ...first, kind: "string", choices: union.map((b) => b.algorithm), default: fallback };
  }
  const having = union.filter((b) => properties(b.node)[key]);
  if (!having.length) throw new Error(`the spec schema has no option ${section}.${key}`);
  const found = describe(having[0].node, key, section);
  return having.length < union.length ? { ...found, readBy: having.map((b) => b.algorithm) } : found;
}

/** A union section's branches (`oneOf`), each with the algorithm it is for; undefined for a plain section. */
export function branches(schema: SchemaNode, owner: SchemaNode): { algorithm: string; node: SchemaNode }[] | undefined {
  const oneOf = owner.oneOf as SchemaNode[] | undefined;
  if (!Array.isArray(oneOf)) return undefined;
  return oneOf.map((ref) => {
    const node = resolve(schema, ref);
    return { algorithm: String(properties(node).algorithm?.const), node };
  });
}

function properties(node: SchemaNode): Record<string, SchemaNode> {
  return (node.properties ?? {}) as Record<string, SchemaNode>;
}

/** Option `key` of a nested part of the spec by its schema name ("LoraSpec", "PolicyHeadSpec", "AgentSpec"):
 * the options that live inside each agent. */
export function declaredIn(part: string, key: string, schema: SchemaNode = SPEC_SCHEMA): DeclaredOption {
  const defs = (schema.$defs ?? {}) as Record<string, SchemaNode>;
  if (!defs[part]) throw new Error(`the spec schema has no part ${part}`);
  return describe(defs[part], key, part);
}

function describe(owner: SchemaNode, key: string, where: string): DeclaredOption {
  const properties = (owner.properties ?? {}) as Record<string, SchemaNode>;
  if (!properties[key]) throw new Error(`the spec schema has no option ${where}.${key}`);
  const node = withoutNull(properties[key]);
  const choices = Array.isArray(node.enum) ? node.enum.map(String) : undefined;
  const type = choices ? "string" : node.type;
  const num = (x: unknown) => (typeof x === "number" ? x : undefined);
  return {
    kind: KINDS.find((k) => k === type) ?? "other",
    default: node.default,
    min: num(node.minimum) ?? num(node.exclusiveMinimum),
    max: num(node.maximum) ?? num(node.exclusiveMaximum),
    choices,
    description: typeof node.description === "string" ? node.description : "",
  };
}

/** Whether `algorithm` reads training option `key`: whether its branch of the schema's union declares it
 * (an option no branch knows is kept: the validator, not the editor, speaks about it). */
export function readsOption(algorithm: string, key: string, schema: SchemaNode = SPEC_SCHEMA): boolean {
  const training = resolve(schema, ((schema.properties ?? {}) as Record<string, SchemaNode>).training);
  const union = branches(schema, training) ?? [];
  if (!union.some((b) => properties(b.node)[key])) return true;
  return union.some((b) => b.algorithm === algorithm && properties(b.node)[key]);
}
