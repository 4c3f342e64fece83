import { useEffect, useRef } from "react";
import { hotkeyOf, type KeyTarget } from "./hotkeys";

/** Where a key event happened, for `hotkeyOf`; `[data-hotkeys]` marks the answer form's area. */
function targetOf(element: EventTarget | null): KeyTarget {
  if (!(element instanceof HTMLElement)) return "other";
  if (element.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName)) return "text";
  if (element.closest("button, a, [role=button]")) return element.closest("[data-hotkeys]") ? "form-button" : "button";
  return "other";
}

/** Call `handle(hotkey)` for every shortcut pressed on the page; a handler that returns true used the key. */
export function useHotkeys(handle: (hotkey: string) => boolean) {
  const latest = useRef(handle);
  latest.current = handle;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      const hotkey = hotkeyOf(event, targetOf(event.target));
      if (hotkey === "Escape" && event.target instanceof HTMLElement) {
        event.target.blur();
        return;
      }
      if (hotkey !== null && latest.current(hotkey)) event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
