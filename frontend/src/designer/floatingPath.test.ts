import { describe, expect, it } from "vitest";
import { borderPoint, floatingPath } from "./floatingPath";

const box = (x: number, y: number) => ({ x, y, width: 190, height: 64 });
const controlOf = (path: string) => path.split(" Q ")[1].split(" ")[0].split(",").map(Number);

describe("floatingPath", () => {
  it("leaves and enters each agent on its facing side", () => {
    expect(borderPoint(box(0, 0), { x: 500, y: 32 })).toEqual({ x: 190, y: 32 });
    expect(borderPoint(box(0, 0), { x: 95, y: 300 })).toEqual({ x: 95, y: 64 });
    // to the left of the centre line, where a dependency between the two is drawn, and off the sides'
    // dependency dots: on the top or bottom border beside them
    expect(floatingPath(box(0, 0), box(400, 0)).path).toMatch(/^M 176,0 Q .* 414,0$/);
    expect(floatingPath(box(400, 0), box(0, 0)).path).toMatch(/^M 414,64 Q .* 176,64$/);
    // an end away from the middle of a side stays where it is
    expect(floatingPath(box(0, 0), box(400, 140)).path).toMatch(/^M 190,5\d/);
  });

  it("leaves a detour from the side it bends towards", () => {
    const [top, middle, bottom] = [box(0, 0), box(0, 120), box(0, 240)];
    const startOf = (path: string) => path.split(" ")[1].split(",").map(Number);
    const detour = startOf(floatingPath(top, bottom, [middle]).path);
    const straight = startOf(floatingPath(top, middle).path);
    // not from beside the straight link to `middle`, where the two would run together
    expect(Math.hypot(detour[0] - straight[0], detour[1] - straight[1])).toBeGreaterThan(30);
  });

  it("bends the two directions of a pair to opposite sides", () => {
    const there = controlOf(floatingPath(box(0, 0), box(400, 0)).path);
    const back = controlOf(floatingPath(box(400, 0), box(0, 0)).path);
    expect(Math.sign(there[1] - 32)).toBe(-Math.sign(back[1] - 32));
  });

  it("goes round an agent that stands between the two", () => {
    const top = box(0, 0);
    const middle = box(0, 120);
    const bottom = box(0, 240);
    const [cx] = controlOf(floatingPath(top, bottom, [middle]).path);
    // the curve's midpoint (half the control's offset) clears the middle agent's side
    expect(Math.abs(cx - 95) / 2).toBeGreaterThan(95);
  });
});
