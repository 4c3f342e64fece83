/** Geometry of a communication link drawn between the facing sides of two agents (not from fixed dots):
 * it leaves and enters each box where the line between their centres crosses its border, and bends to
 * the left of its direction, so the two directions of a pair run side by side instead of on top of each
 * other, and links fanning out of one agent spread apart. Both ends sit a lane to the left of the line
 * between the centres, so neither direction of a pair runs on the dependency drawn along that line, and
 * no end sits by the dependency dots in the middle of an agent's left and right sides. */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

const centre = (b: Box): Point => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

/** Where the ray from `from` (inside `box`; its centre unless given) towards `towards` leaves the box. */
export function borderPoint(box: Box, towards: Point, from: Point = centre(box)): Point {
  const c = from;
  const dx = towards.x - c.x;
  const dy = towards.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const scale = Math.min(
    dx === 0 ? Infinity : (dx > 0 ? box.x + box.width - c.x : c.x - box.x) / Math.abs(dx),
    dy === 0 ? Infinity : (dy > 0 ? box.y + box.height - c.y : c.y - box.y) / Math.abs(dy),
  );
  return { x: c.x + dx * scale, y: c.y + dy * scale };
}

/** How far left of the centre line a communication link's ends sit. */
export const LANE = 12;

const MARGIN = 8;

/** A communication link never ends on an agent's left or right side within this distance of its middle:
 * the dependency dots sit there and the dependencies converge on them, so a link ending there would
 * share their path. It ends on the top or bottom border instead, this far in from the corner. */
export const DOT_CLEARANCE = 16;
const CORNER = 14;

/** `end` on `box`'s border, moved off the dependency dot to the top or bottom border beside that side
 * (the one it leans to, else the one `bend` (where the curve goes) is on). */
function offTheDots(box: Box, end: Point, bend: Point): Point {
  const onLeft = Math.abs(end.x - box.x) < 0.5;
  const onRight = Math.abs(end.x - box.x - box.width) < 0.5;
  const mid = box.y + box.height / 2;
  if ((!onLeft && !onRight) || Math.abs(end.y - mid) >= Math.min(DOT_CLEARANCE, box.height / 2)) return end;
  const down = end.y !== mid ? end.y > mid : bend.y > mid;
  return { x: onLeft ? box.x + CORNER : box.x + box.width - CORNER, y: down ? box.y + box.height : box.y };
}

function hits(box: Box, p: Point): boolean {
  return p.x > box.x - MARGIN && p.x < box.x + box.width + MARGIN && p.y > box.y - MARGIN && p.y < box.y + box.height + MARGIN;
}

function along(from: Point, control: Point, to: Point, t: number): Point {
  const u = 1 - t;
  return { x: u * u * from.x + 2 * u * t * control.x + t * t * to.x, y: u * u * from.y + 2 * u * t * control.y + t * t * to.y };
}

/** An SVG path (quadratic Bézier) from `source`'s border to `target`'s border, bent to the left of the
 * direction of travel: `bend` px, or as much more as it takes to go round the `obstacles` (the other
 * agents) instead of through them. With the curve's midpoint, for a label. */
export function floatingPath(source: Box, target: Box, obstacles: Box[] = [], bend = 28): { path: string; mid: Point } {
  const [a, b] = [centre(source), centre(target)];
  const across = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  // The left of the direction of travel, a lane wide (kept inside the smaller box).
  const lane = Math.min(LANE, source.height / 3, target.height / 3);
  const left = { x: ((b.y - a.y) / across) * lane, y: (-(b.x - a.x) / across) * lane };
  const [a2, b2] = [{ x: a.x + left.x, y: a.y + left.y }, { x: b.x + left.x, y: b.y + left.y }];
  let from = offTheDots(source, borderPoint(source, b2, a2), b2);
  let to = offTheDots(target, borderPoint(target, a2, b2), a2);
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  const controlAt = (amount: number) => ({
    x: (from.x + to.x) / 2 + (dy / length) * amount,
    y: (from.y + to.y) / 2 - (dx / length) * amount,
  });
  const clear = (control: Point) =>
    [0.15, 0.3, 0.45, 0.5, 0.55, 0.7, 0.85].every((t) => !obstacles.some((box) => hits(box, along(from, control, to, t))));
  let amount = Math.min(bend, length / 4);
  let control = controlAt(amount);
  // Past an agent in the way: straight in its lane, else round it by the nearer side (further left, or
  // as far to the right).
  for (let step = 0; step <= 24 && !clear(control); step++) {
    const out = Math.min(bend, length / 4) + Math.ceil(step / 2) * 40;
    amount = step === 0 ? 0 : step % 2 ? out : -out;
    control = controlAt(amount);
  }
  if (Math.abs(amount) > bend) {
    // A detour leaves and enters on the sides facing its bend, not alongside the straight links.
    from = offTheDots(source, borderPoint(source, control, a2), control);
    to = offTheDots(target, borderPoint(target, control, b2), control);
  }
  const r = (v: number) => Math.round(v * 10) / 10;
  return {
    path: `M ${r(from.x)},${r(from.y)} Q ${r(control.x)},${r(control.y)} ${r(to.x)},${r(to.y)}`,
    mid: along(from, control, to, 0.5),
  };
}
