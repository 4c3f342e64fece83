import type { EdgeSpec } from "./types";

/** Communication links in both directions between the same two agents are drawn as one two-way link
 * (an arrowhead at each end): the spec keeps both edges, only the drawing merges them, which halves the
 * lines on a densely talking team. Each merged edge maps to its partner; the lower index is the one drawn.
 * `sameLook(i, j)` may keep a pair apart when its two directions are drawn differently (a problem on one,
 * or one unused by the team), so each keeps its own mark. */
export function twoWayPartners(edges: EdgeSpec[], sameLook: (a: number, b: number) => boolean = () => true): Map<number, number> {
  const partners = new Map<number, number>();
  const open = new Map<string, number>();
  edges.forEach((edge, index) => {
    if (edge.kind === "dependency" || edge.source === edge.target) return;
    const back = open.get(`${edge.target}\u0000${edge.source}`);
    if (back !== undefined && sameLook(back, index)) {
      partners.set(back, index).set(index, back);
      open.delete(`${edge.target}\u0000${edge.source}`);
    } else if (!open.has(`${edge.source}\u0000${edge.target}`)) {
      open.set(`${edge.source}\u0000${edge.target}`, index);
    }
  });
  return partners;
}

/** The index of the communication link running the other way to edge `index`, if the spec has one. */
export function reverseLink(edges: EdgeSpec[], index: number): number | undefined {
  return twoWayPartners(edges).get(index);
}
