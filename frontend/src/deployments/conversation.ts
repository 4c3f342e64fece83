/** Conversations with a conversational team (mase_web/deployments/conversation_api.py): types, calls and
 * the words the console and the review page show for them. */
import { api } from "../api";

/** Environments whose deployed teams hold a conversation instead of taking one ticket. */
export const CONVERSATIONAL = new Set(["interactive_support"]);

export interface TurnDecision {
  id: number;
  step: number;
  agent: string;
  action: string;
  source: "model" | "trial" | "fallback";
  confidence: number | null;
  fault: string;
}

export interface TurnEvent {
  kind: "question" | "answer" | "escalated" | "left" | "accepted" | "failed";
  fact?: string;
  problem?: string;
  remedy?: string;
}

export interface Turn {
  turn: number;
  episode: number;
  customer: string;
  reply: string;
  speaker: string;
  event: TurnEvent | null;
  decisions: TurnDecision[];
  status: string;
  created_at: string;
}

export interface Conversation {
  id: number;
  deployment: number;
  status: "open" | "resolved" | "escalated" | "abandoned" | "failed";
  ended: boolean;
  awaiting: string | null;
  turns: number;
  turn_list: Turn[];
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface TurnBody {
  text: string;
  accepted?: boolean;
}

const post = (body: unknown) => ({ method: "POST", body: JSON.stringify({ ...(body as object), source: "browser" }) });

export const conversationsApi = {
  start: (deployment: number, text: string) => api<Conversation>(`deployments/${deployment}/conversations/`, post({ text })),
  say: (id: number, body: TurnBody) => api<Conversation>(`conversations/${id}/turns/`, post(body)),
  get: (id: number) => api<Conversation>(`conversations/${id}/`),
  ofDeployment: (deployment: number) => api<Conversation[]>(`conversations/?deployment=${deployment}`),
  all: () => api<Conversation[]>("conversations/"),
};

/** Where the console keeps the conversation it shows, so a reload carries on with it. */
export const storageKey = (deployment: number) => `mase.conversation.${deployment}`;

/** What the customer said in a turn; a turn without words is their word on the team's answer (the console's
 * "That solved it" or "It did not": the server takes an empty message only then), so it says which. */
export function customerWords(t: Pick<Turn, "customer" | "event">): { text: string; spoken: boolean } {
  if (t.customer) return { text: t.customer, spoken: true };
  return { text: t.event?.kind === "accepted" ? "(no words: the answer solved it)" : "(no words: the answer did not solve it)", spoken: false };
}

/** One decision in words: "triage: ask problem (rules, 100%)". */
export function decisionText(d: TurnDecision): string {
  const who = d.source === "fallback" ? "rules" : d.source === "trial" ? "trial" : "model";
  const sure = d.confidence === null ? "" : `, ${Math.round(d.confidence * 100)}%`;
  return `${d.agent}: ${d.action.replace(/_/g, " ")} (${who}${sure})`;
}

/** How a conversation ended, in words (null while it is open). */
export function endedText(c: Pick<Conversation, "status" | "ended">): string | null {
  if (!c.ended) return null;
  const how: Record<string, string> = {
    resolved: "resolved: the customer accepted the answer",
    escalated: "escalated: a person from the support team takes over",
    abandoned: "ended: the customer's patience ran out",
    failed: "ended: a second answer did not solve it",
  };
  return `Conversation ${how[c.status] ?? c.status}.`;
}

/** What the team waits for, in words. */
export function awaitingText(awaiting: string | null): string {
  if (awaiting === "feedback") return "The team waits for the customer's word on its answer.";
  if (awaiting?.startsWith("answer:")) return `The team waits for the customer's answer (${awaiting.slice(7)}).`;
  return "";
}
