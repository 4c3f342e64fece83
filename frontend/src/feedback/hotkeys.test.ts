import { describe, expect, it } from "vitest";
import { hotkeyOf, starOf, TAG_KEYS, tagKey, tagOf, type KeyLike } from "./hotkeys";
import { neighbourId } from "./navigation";

const press = (key: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe("hotkeyOf", () => {
  it("passes digits, letters, Enter and arrows pressed outside text fields", () => {
    expect(hotkeyOf(press("4"), "other")).toBe("4");
    expect(hotkeyOf(press("Q", { shiftKey: true }), "other")).toBe("q");
    expect(hotkeyOf(press("Enter"), "other")).toBe("Enter");
    expect(hotkeyOf(press("Enter"), "form-button")).toBe("Enter");
    expect(hotkeyOf(press("ArrowRight"), "form-button")).toBe("ArrowRight");
  });

  it("never fires while typing: only Ctrl/⌘+Enter and Escape come out of a text field", () => {
    for (const key of ["4", "q", "n", "a", "Enter", "ArrowLeft", " "]) expect(hotkeyOf(press(key), "text")).toBeNull();
    expect(hotkeyOf(press("Enter", { ctrlKey: true }), "text")).toBe("mod+Enter");
    expect(hotkeyOf(press("Enter", { metaKey: true }), "text")).toBe("mod+Enter");
    expect(hotkeyOf(press("Escape"), "text")).toBe("Escape");
  });

  it("leaves browser chords, shifted digits and Enter on buttons outside the form alone", () => {
    expect(hotkeyOf(press("1", { ctrlKey: true }), "other")).toBeNull();
    expect(hotkeyOf(press("q", { altKey: true }), "other")).toBeNull();
    expect(hotkeyOf(press("!", { shiftKey: true }), "other")).toBe("!");
    expect(hotkeyOf(press("1", { shiftKey: true }), "other")).toBeNull();
    expect(hotkeyOf(press("Enter"), "button")).toBeNull();
    expect(hotkeyOf(press("Tab"), "other")).toBeNull();
  });
});

describe("stars and tags", () => {
  it("maps 1–5 to stars and nothing else", () => {
    expect(["1", "5", "0", "6", "q"].map(starOf)).toEqual([1, 5, null, null, null]);
  });

  it("gives each tag its own letter in order, never n (next item) or a digit", () => {
    const tags = ["wrong intent", "rude", "great"];
    expect(tags.map((_, i) => tagKey(i))).toEqual(["q", "w", "e"]);
    expect(["q", "w", "e", "r"].map((k) => tagOf(k, tags))).toEqual([...tags, null]);
    expect(new Set(TAG_KEYS).size).toBe(TAG_KEYS.length);
    expect(TAG_KEYS).not.toMatch(/[n0-9]/);
    expect(tagKey(TAG_KEYS.length)).toBeUndefined();
  });
});

describe("neighbourId", () => {
  it("steps forward and back, stops at the ends, and goes back to the last item from all-done", () => {
    const ids = [10, 11, 12];
    expect(neighbourId(ids, 10, 1)).toBe(11);
    expect(neighbourId(ids, 11, -1)).toBe(10);
    expect(neighbourId(ids, 12, 1)).toBeNull();
    expect(neighbourId(ids, 10, -1)).toBeNull();
    expect(neighbourId(ids, null, -1)).toBe(12);
    expect(neighbourId(ids, 99, 1)).toBeNull();
  });
});
