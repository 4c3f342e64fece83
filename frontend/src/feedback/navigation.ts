/** Moving through an annotator's items with next / previous. */

/** The id `delta` places from `current` in `ids` (null past either end); from nowhere (all done),
 * previous is the last item. */
export function neighbourId(ids: number[], current: number | null, delta: 1 | -1): number | null {
  const at = current === null ? ids.length : ids.indexOf(current);
  if (at < 0) return null;
  return ids[at + delta] ?? null;
}
