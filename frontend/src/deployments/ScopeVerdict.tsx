import { type ScopeVerdict as Verdict, scopeVerdictWords } from "./consoleLabels";

/** The scope gate's numbers for a ticket it turned away (`scopeVerdictWords`), as a paragraph (``block``) or
 * a line inside one; nothing for a played ticket. */
export function ScopeVerdict({ verdict, block = false }: { verdict: Verdict | null | undefined; block?: boolean }) {
  const words = scopeVerdictWords(verdict);
  if (!words) return null;
  const Tag = block ? "p" : "span";
  return (
    <Tag className="small muted scope-verdict" data-testid="scope-verdict">
      {words}
    </Tag>
  );
}
