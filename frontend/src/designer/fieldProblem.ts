import { useDesigner } from "./store";

/** Whether a validator path lies at or under `field` ("$.reward.terms[1]" covers its weights). */
export function pathWithin(path: string, field: string): boolean {
  return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}

/** The first validation error at or under the spec path `field` (null when none, or no path given). */
export function useFieldProblem(field: string | undefined): string | null {
  return useDesigner((s) =>
    field ? (s.report?.errors.find((e) => pathWithin(e.path, field))?.message ?? null) : null,
  );
}

/** Brings the editor field that shows `path` (its closest `data-path` ancestor path) into view and focus. */
export function revealField(path: string): void {
  const fields = [...document.querySelectorAll<HTMLElement>("[data-path]")];
  const best = fields
    .filter((el) => pathWithin(path, el.dataset.path ?? "\u0000"))
    .sort((a, b) => (b.dataset.path?.length ?? 0) - (a.dataset.path?.length ?? 0))[0];
  if (!best) return;
  best.scrollIntoView({ block: "center" });
  best.querySelector<HTMLElement>("input, select, textarea")?.focus({ preventScroll: true });
}
