/** Step messages as people read them: who sent what to whom, never raw JSON.
 *
 * The runtime logs learned communication as `{received: [{from, weight}], sent: [{to, weight}]}` (attention
 * weights: how much an agent listened to another); pasted snapshots may hold any JSON, e.g. a list of
 * `{from, to, text}`. Everything becomes lines "sender → recipient: what"; an attention weight is kept as a
 * number for a bar, never written out as a figure.
 */

export interface MessageLine {
  from?: string;
  to?: string;
  text: string;
  /** How much the recipient listened to the sender, 0..1 (learned communication has no words). */
  weight?: number;
}

const SENDER = ["from", "sender", "source"];
const RECIPIENT = ["to", "recipient", "target"];
const CONTENT = ["text", "content", "message", "body"];
const INBOX = ["received", "in", "inbox"];
const OUTBOX = ["sent", "out", "outbox"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON value as plain words: "a, b" for lists, "key value" pairs for objects, two decimals for fractions. */
export function plainText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (typeof value === "string" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(plainText).filter(Boolean).join(", ");
  if (isRecord(value)) {
    return Object.entries(value)
      .map(([k, v]) => `${k} ${plainText(v)}`.trim())
      .join(", ");
  }
  return String(value);
}

const pick = (entry: Record<string, unknown>, names: string[]) => names.find((n) => entry[n] !== undefined && entry[n] !== null);

/** One message; `defaults` fills in the agent of the row (the recipient of what it received, the sender of what it sent). */
function messageLine(entry: unknown, defaults: { from?: string; to?: string }): MessageLine {
  if (!isRecord(entry)) return { ...defaults, text: plainText(entry) };
  const sender = pick(entry, SENDER);
  const recipient = pick(entry, RECIPIENT);
  const content = pick(entry, CONTENT);
  const used = new Set([sender, recipient, content, "weight"]);
  const parts: string[] = [];
  if (content) parts.push(plainText(entry[content]));
  const rest = Object.fromEntries(Object.entries(entry).filter(([k]) => !used.has(k)));
  if (Object.keys(rest).length > 0) parts.push(plainText(rest));
  const line: MessageLine = {
    from: sender ? plainText(entry[sender]) : defaults.from,
    to: recipient ? plainText(entry[recipient]) : defaults.to,
    text: parts.filter(Boolean).join(" · "),
  };
  if (typeof entry.weight === "number") line.weight = Math.min(1, Math.max(0, entry.weight));
  return line;
}

/** The messages of `agent`'s step as lines, in log order: what it received, then what it sent. */
export function describeMessages(messages: unknown, agent: string): MessageLine[] {
  if (messages === null || messages === undefined || messages === "") return [];
  if (Array.isArray(messages)) return messages.map((m) => messageLine(m, {}));
  if (!isRecord(messages)) return [{ text: plainText(messages) }];
  if (pick(messages, SENDER) || pick(messages, RECIPIENT) || pick(messages, CONTENT)) return [messageLine(messages, {})];
  const lines: MessageLine[] = [];
  // Received before sent whatever order the keys come in (PostgreSQL's jsonb stores "sent" before "received").
  const rank = (key: string) => (INBOX.includes(key) ? 0 : OUTBOX.includes(key) ? 1 : 2);
  const parts = Object.entries(messages).sort(([a], [b]) => rank(a) - rank(b));
  for (const [key, value] of parts) {
    const defaults = INBOX.includes(key) ? { to: agent } : OUTBOX.includes(key) ? { from: agent } : null;
    const entries = Array.isArray(value) ? value : [value];
    if (defaults) lines.push(...entries.map((m) => messageLine(m, defaults)));
    else if (Array.isArray(value)) lines.push(...value.map((m) => ({ ...messageLine(m, {}), text: `${key}: ${messageLine(m, {}).text}` })));
    else lines.push({ text: `${key}: ${plainText(value)}` });
  }
  return lines;
}
