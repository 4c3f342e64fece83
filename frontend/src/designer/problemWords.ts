/** The validator speaks JSON paths (`$.edges[13].target`, `$.reward.terms[1].weights.exploration`);
 * people read words ("the communication link from logistics to quality_supervisor"). This module turns
 * a path into words and into what the designer should show: the agent or link on the canvas, or the
 * side-panel tab and field at fault. */
import { trainingOptionWords } from "./trainingWords";
import type { TeamSpec } from "./types";

export type EditorTab = "reward" | "schedule" | "training" | "environment" | "safety";

export type ProblemTarget =
  | { kind: "agent"; id: string; path: string }
  | { kind: "edge"; index: number; path: string }
  | { kind: "tab"; tab: EditorTab; path: string }
  | null;

export interface DescribedPath {
  /** What the path names, in words: "the agent planner's prompt". */
  words: string;
  target: ProblemTarget;
}

/** Which editor tab holds each top-level section of the spec. */
const SECTION_TAB: Record<string, EditorTab> = {
  reward: "reward",
  evolution: "schedule",
  curriculum: "schedule",
  training: "training",
  backbone: "training",
  communication: "training",
  environment: "environment",
  circuit_breaker: "safety",
  fallback: "safety",
};

/** Readable names of fields whose key says little on its own. */
const FIELD_WORDS: Record<string, string> = {
  "lora.r": "LoRA rank",
  "lora.alpha": "LoRA alpha",
  "lora.dropout": "LoRA dropout",
  "lora.target_modules": "LoRA target modules",
  "policy_head.hidden": "policy head size (hidden units)",
  threshold: "advance score",
  cooldown_s: "cooldown (seconds)",
  cycle_episodes: "episodes per cycle",
  min_improvement: "minimum improvement",
  teacher_checkpoint: "teacher checkpoint",
  source: "start",
  target: "end",
};

const SECTION_WORDS: Record<string, string> = {
  reward: "the reward",
  evolution: "the evolution schedule",
  curriculum: "the curriculum",
  training: "the training settings",
  backbone: "the shared backbone",
  communication: "the communication settings",
  environment: "the environment",
  circuit_breaker: "the circuit breaker",
  fallback: "the fallback",
  agents: "the agents",
  edges: "the links",
};

type Token = string | number;

/** `$.a.b[2].c` → ["a", "b", 2, "c"]. */
export function pathTokens(path: string): Token[] {
  const tokens: Token[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]/g;
  for (const m of path.replace(/^\$/, "").matchAll(re)) tokens.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return tokens;
}

/** A field path ("lora.r", "rules[0].action") in words. */
export function fieldWords(tokens: Token[]): string {
  const key = tokens.filter((t) => typeof t === "string").join(".");
  if (FIELD_WORDS[key]) return FIELD_WORDS[key];
  return tokens
    .map((t) => (typeof t === "number" ? `#${t + 1}` : t.replaceAll("_", " ")))
    .join(" ");
}

const possessive = (words: string, rest: Token[]) => (rest.length ? `${words}'s ${fieldWords(rest)}` : words);
const quoted = (value: unknown) => (typeof value === "string" && value ? value : null);

function describeAgent(spec: TeamSpec, index: number, rest: Token[], path: string): DescribedPath {
  const id = quoted(spec.agents[index]?.id);
  const words = id ? `the agent ${id}` : `agent #${index + 1}`;
  return { words: possessive(words, rest), target: id ? { kind: "agent", id, path } : null };
}

function describeEdge(spec: TeamSpec, index: number, rest: Token[], path: string): DescribedPath {
  const edge = spec.edges?.[index];
  if (!edge) return { words: possessive(`link #${index + 1}`, rest), target: null };
  const what = edge.kind === "dependency" ? "the dependency" : "the communication link";
  const link = `${what} from ${edge.source} to ${edge.target}`;
  const words = rest.length ? `the ${fieldWords(rest)} of ${link}` : link;
  return { words, target: { kind: "edge", index, path } };
}

function describeSection(spec: TeamSpec, section: string, rest: Token[]): string {
  if (section === "reward" && rest[0] === "terms" && typeof rest[1] === "number") {
    const term = quoted(spec.reward?.terms?.[rest[1]]?.term);
    const name = term ? `the reward term "${term.replaceAll("_", " ")}"` : `reward term #${rest[1] + 1}`;
    if (rest[2] === "weights" && typeof rest[3] === "string") return `the weight of ${name} in the ${rest[3]} phase`;
    return possessive(name, rest.slice(2));
  }
  if (section === "evolution" && rest[0] === "phases" && typeof rest[1] === "number") {
    const phase = quoted(spec.evolution?.phases?.[rest[1]]?.name);
    return possessive(phase ? `the ${phase} phase` : `phase #${rest[1] + 1}`, rest.slice(2));
  }
  if (section === "evolution" && rest[0] === "plateau") return possessive("the plateau rule", rest.slice(1));
  if (section === "fallback" && rest[0] === "rules" && typeof rest[1] === "number") {
    return possessive(`fallback rule #${rest[1] + 1}`, rest.slice(2));
  }
  if (section === "environment" && rest[0] === "params" && typeof rest[1] === "string") {
    return `the environment setting "${fieldWords(rest.slice(1))}"`;
  }
  const words = SECTION_WORDS[section] ?? `the ${section.replaceAll("_", " ")} section`;
  if (section === "training" && rest.length === 1 && typeof rest[0] === "string") {
    return `the training setting "${trainingOptionWords(rest[0])}"`;
  }
  if (section === "training" && rest.length) return `the training setting "${fieldWords(rest)}"`;
  return possessive(words, rest);
}

/** A validator path in words, with what to select or open to fix it. */
export function describePath(spec: TeamSpec, path: string): DescribedPath {
  const tokens = pathTokens(path);
  const [head, index, ...rest] = tokens;
  if (head === undefined) return { words: "the workflow", target: null };
  if (head === "agents" && typeof index === "number") return describeAgent(spec, index, rest, path);
  if (head === "edges" && typeof index === "number") return describeEdge(spec, index, rest, path);
  const section = String(head);
  const tab = SECTION_TAB[section];
  const words = describeSection(spec, section, tokens.slice(1));
  return { words, target: tab ? { kind: "tab", tab, path } : null };
}

/** A message with any JSON paths inside it ("also $.agents[3]") put into words too. */
export function messageInWords(spec: TeamSpec, message: string): string {
  return message.replace(/\$(?:\.[A-Za-z_][\w]*|\[\d+\])+/g, (path) => describePath(spec, path).words);
}
