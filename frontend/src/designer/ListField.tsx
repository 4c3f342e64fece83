import { useState } from "react";

import type { Json } from "./types";

/** How a list parameter is entered: names comma-separated on one line, or phrases one a line. */
export type ListKind = "list" | "lines";

const SEPARATOR: Record<ListKind, RegExp> = { list: /,/, lines: /\r?\n/ };

/** The items a list field's text holds: split at commas ("list") or line breaks ("lines"), blanks dropped. */
export function listItems(text: string, kind: ListKind): string[] {
  return text
    .split(SEPARATOR[kind])
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A list value as its field writes it. */
export function listText(value: Json, kind: ListKind): string {
  return Array.isArray(value) ? value.join(kind === "lines" ? "\n" : ", ") : "";
}

/** What the field shows: the text being typed while it still holds the value (so a trailing comma or a
 * new, still empty line stays while the next item is typed), else the value as written by `listText`. */
export function shownListText(typed: string | null, value: Json, kind: ListKind): string {
  const items = Array.isArray(value) ? value : [];
  if (typed !== null && JSON.stringify(listItems(typed, kind)) === JSON.stringify(items)) return typed;
  return listText(value, kind);
}

interface Props {
  label: string;
  hint: string;
  kind: ListKind;
  value: Json;
  /** The items, or undefined when none is left (the parameter's default). */
  onChange: (items: string[] | undefined) => void;
}

/** A list parameter: an input of comma-separated names, or a text box of one phrase a line. */
export function ListField({ label, hint, kind, value, onChange }: Props) {
  const [typed, setTyped] = useState<string | null>(null);
  const text = shownListText(typed, value, kind);
  const change = (next: string) => {
    setTyped(next);
    const items = listItems(next, kind);
    onChange(items.length ? items : undefined);
  };
  return (
    <label className={kind === "lines" ? "field column" : "field"} title={hint}>
      <span>{label}</span>
      {kind === "lines" ? (
        <textarea aria-label={label} rows={Math.min(12, Math.max(3, text.split("\n").length + 1))} value={text} onChange={(e) => change(e.target.value)} />
      ) : (
        <input aria-label={label} value={text} placeholder="all" onChange={(e) => change(e.target.value)} />
      )}
    </label>
  );
}
