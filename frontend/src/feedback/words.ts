/** Identifiers of the product (agent ids, intents, actions) as people read them: "quality_supervisor" is
 * "Quality supervisor", "track_order" is "track order". Shared by the annotator's and the operator's views. */

/** A snake_case identifier as words, lower case ("track_order" → "track order"). */
export function words(code: string): string {
  return code.replace(/[_-]+/g, " ").trim();
}

/** An identifier as a name, first letter capitalised ("quality_supervisor" → "Quality supervisor"). */
export function spoken(code: string): string {
  const text = words(code);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface IntentInfo {
  name: string;
  description: string;
}

const CODE = /^[a-z0-9]+(_[a-z0-9]+)+$/;

/** The intents an answer names, with what each means: the snapshot's catalogue entries when it has them,
 * else the answer's comma-separated codes as words (no description). */
export function answerIntents(answer: string, known: IntentInfo[] | undefined): { label: string; description: string }[] {
  if (known && known.length > 0) return known.map((i) => ({ label: spoken(i.name), description: i.description }));
  const parts = answer.split(",").map((part) => part.trim()).filter(Boolean);
  // Only a list of identifiers is split; an answer in words ("Hello, your refund…") stays whole.
  if (parts.length > 0 && parts.every((part) => CODE.test(part))) return parts.map((part) => ({ label: spoken(part), description: "" }));
  return answer.trim() ? [{ label: answer.trim(), description: "" }] : [];
}
