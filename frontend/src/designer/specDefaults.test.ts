import { describe, expect, it } from "vitest";

import { filled, plateauWords, specDefaults, type SpecDefaults } from "./specDefaults";
import type { Catalogue } from "./types";

const breaker = { confidence_threshold: 0.5, consecutive_low: 3, cooldown_s: 30, step_limit: 20 };

describe("filled", () => {
  it("shows every default for a section the spec leaves out", () => {
    expect(filled(undefined, breaker)).toEqual(breaker);
    expect(filled({}, breaker)).toEqual(breaker);
  });

  it("keeps what the section sets, zero and false included, and defaults the rest", () => {
    expect(filled({ cooldown_s: 0, step_limit: 5 }, breaker)).toEqual({ ...breaker, cooldown_s: 0, step_limit: 5 });
    expect(filled({ enabled: false, upper: 0.9 }, { enabled: true, upper: 0.8 })).toEqual({ enabled: false, upper: 0.9 });
  });

  it("shows the default for a null field, and no field the defaults do not have", () => {
    expect(filled({ cooldown_s: null }, breaker)).toEqual(breaker);
    const section = { cooldown_s: 10, other: 1 } as Partial<typeof breaker>;
    expect(filled(section, breaker)).toEqual({ ...breaker, cooldown_s: 10 });
  });

  it("leaves the defaults themselves alone", () => {
    const defaults = { ...breaker };
    filled({ cooldown_s: 1 }, defaults);
    expect(defaults).toEqual(breaker);
  });
});

describe("plateauWords", () => {
  it("words the rule as the legend says it", () => {
    expect(plateauWords({ cycles: 3, min_improvement: 0.02 })).toBe("3 cycles, 2%");
    expect(plateauWords({ cycles: 5, min_improvement: 0.015 })).toBe("5 cycles, 1.5%");
  });
});

describe("specDefaults", () => {
  it("returns the catalogue's defaults, and refuses a catalogue without them", () => {
    const defaults = { circuit_breaker: breaker } as unknown as SpecDefaults;
    const catalogue = { phases: ["exploration"] } as unknown as Catalogue;
    expect(specDefaults({ ...catalogue, defaults })).toBe(defaults);
    expect(() => specDefaults(catalogue)).toThrow(/no spec defaults/);
  });
});
