/** The written reply of a ticket and the writer's settings (serving/generation, mase_web/deployments/writing.py). */
import { api } from "../api";

export type WriterBackend = "template" | "local" | "openai_compatible";
export const WRITER_BACKENDS: { value: WriterBackend; label: string }[] = [
  { value: "template", label: "template (no model)" },
  { value: "local", label: "local causal LM directory" },
  { value: "openai_compatible", label: "OpenAI-compatible server" },
];

/** One agent's part of the reply, and how it was written. */
export interface ReplyPart {
  agent: string;
  intents: string[];
  text: string;
  /** "model": the backend wrote it; "trial": the writer's half-open trial; "fallback": the template. */
  source: "model" | "trial" | "fallback";
  backend: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  latency_ms: number;
  cost: number;
  fault: string | null;
  fault_detail: string;
}

export interface Reply {
  text: string;
  parts: ReplyPart[];
  backend: string;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  cost: number;
  latency_ms: number;
  faults: { agent: string | null; kind: string; detail: string }[];
  fallback: boolean;
  approved?: boolean;
  breaker?: string;
  /** The deployed team's name, which signs the reply (the spec's name). */
  signature?: string;
  /** True when the scope gate handed the ticket to a person instead of the team answering it. */
  handed_to_person?: boolean;
  /** A writing team's text: its section names (absent for a customer-service reply). */
  sections?: string[];
}

/** One block of a writing team's text (serving/generation/sections.py composes it): a ``## `` heading, a
 * fenced code block, or a paragraph (one line). */
export type TextBlock = { kind: "heading" | "paragraph" | "code"; text: string; language?: string };

/** A writing team's text as blocks, so the code a code team wrote is shown as code. */
export function textBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let code: { language: string; lines: string[] } | null = null;
  for (const line of text.split("\n")) {
    if (code) {
      if (line.trim() === "```") {
        blocks.push({ kind: "code", text: code.lines.join("\n"), language: code.language });
        code = null;
      } else code.lines.push(line);
    } else if (line.startsWith("```")) code = { language: line.slice(3).trim(), lines: [] };
    else if (line.startsWith("## ")) blocks.push({ kind: "heading", text: line.slice(3) });
    else if (line.trim()) blocks.push({ kind: "paragraph", text: line });
  }
  if (code) blocks.push({ kind: "code", text: code.lines.join("\n"), language: code.language }); // unclosed: still code
  return blocks;
}

/** A deployment's writer settings as the API shows them (never the key: only whether one is stored). */
export interface WriterSettings {
  backend: WriterBackend;
  model: string;
  base_url: string;
  api_key_env: string;
  api_key_stored: boolean;
  [knob: string]: unknown;
}

/** What the deploy form and the settings change send. */
export interface WriterRequest {
  settings: Partial<Omit<WriterSettings, "api_key_stored">>;
  api_key?: string;
}

export type WriterTrial = { ok: true; text: string; latency_ms: number } | { ok: false; error: string; latency_ms: number };

export const writerApi = {
  settings: (deploymentId: number) => api<WriterSettings>(`deployments/${deploymentId}/generation/`),
  change: (deploymentId: number, body: WriterRequest) =>
    api<{ generation: WriterSettings }>(`deployments/${deploymentId}/generation/`, { method: "POST", body: JSON.stringify(body) }),
  test: (deploymentId: number) =>
    api<WriterTrial>(`deployments/${deploymentId}/generation/test/`, { method: "POST", body: "{}" }),
};

/** What writing a batch's replies cost (GET /api/deployments/<id>/batches/, ``writing``). */
export interface BatchWriting {
  replies: number;
  backends: string[];
  cost: number;
  tokens: number;
  latency_ms: { p50: number; p95: number };
  fallback_share: number;
  faults: Record<string, number>;
}

/** "2 replies by local · 1,234 tokens · p50 40 ms, p95 90 ms · template 10 %" for a batch row. */
export function batchWritingFacts(w: BatchWriting): string {
  const cost = w.cost > 0 ? ` · ${w.cost.toFixed(4)} cost` : "";
  const fallback = w.fallback_share > 0 ? ` · template wrote ${Math.round(100 * w.fallback_share)} %` : "";
  return `${w.replies} replies by ${w.backends.join(", ")} · ${w.tokens} tokens · p50 ${w.latency_ms.p50.toFixed(0)} ms, p95 ${w.latency_ms.p95.toFixed(0)} ms${cost}${fallback}`;
}

/** "1.2k tokens · 340 ms · $0.0021" for a reply's footer. */
export function replyFacts(reply: Pick<Reply, "usage" | "latency_ms" | "cost" | "backend">): string {
  const tokens = reply.usage.prompt_tokens + reply.usage.completion_tokens;
  const shown = tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
  const cost = reply.cost > 0 ? ` · ${reply.cost.toFixed(4)} cost` : "";
  return `${reply.backend} · ${shown} tokens · ${reply.latency_ms.toFixed(0)} ms${cost}`;
}

/** Whether the scope gate handed a ticket to a person instead of the team answering it (serving.scope). */
export function handedToPerson(result: object): boolean {
  return (result as { reply?: Reply }).reply?.handed_to_person === true;
}
