/** Keyboard shortcuts of the annotation page, as Label Studio users expect them.
 *
 * 1–5 set the rating, one letter per tag (TAG_KEYS, shown on the tag), Enter or Ctrl+Enter submits, S skips; a / b / t
 * judge a pair; n or → goes to the next item, ← to the previous one. Nothing fires while the focus is in a
 * text field (the comment box), except Ctrl/⌘+Enter, which submits, and Escape, which leaves the field.
 */

/** Keys of the tags in order; "n" is the next item and "s" skips an item, so neither is a tag's. */
export const TAG_KEYS = "qwertyuiopadfghjklzxcvbm";

export const tagKey = (index: number): string | undefined => TAG_KEYS[index];

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Where the key was pressed: in a text field, on a button (inside the answer form or not), elsewhere. */
export type KeyTarget = "text" | "form-button" | "button" | "other";

/** The shortcut a key press stands for ("4", "q", "Enter", "mod+Enter", "ArrowRight", "Escape" …), or
 * null when it belongs to whatever has the focus (typing, a focused link or button, browser chords). */
export function hotkeyOf(event: KeyLike, target: KeyTarget): string | null {
  const mod = event.ctrlKey || event.metaKey;
  if (event.key === "Enter" && mod) return "mod+Enter";
  if (target === "text") return event.key === "Escape" ? "Escape" : null;
  if (mod || event.altKey) return null;
  if (event.key === "Enter") return target === "button" ? null : "Enter";
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") return event.key;
  if (event.key.length !== 1 || (event.shiftKey && /[0-9]/.test(event.key))) return null;
  return event.key.toLowerCase();
}

/** The star a shortcut sets (1–5), or null. */
export function starOf(hotkey: string): number | null {
  return /^[1-5]$/.test(hotkey) ? Number(hotkey) : null;
}

/** The tag a shortcut toggles, or null. */
export function tagOf(hotkey: string, tags: string[]): string | null {
  const index = TAG_KEYS.indexOf(hotkey);
  return hotkey.length === 1 && index >= 0 && index < tags.length ? tags[index] : null;
}
