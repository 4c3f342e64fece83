/** Adding and removing evolution phases without breaking the spec: phases keep the scheduler's order,
 * thresholds never decrease, and the reward's weights follow (a removed phase's weights go with it; a new
 * phase starts with its neighbour's weights rather than a reward of zero). */
import type { PhaseSpec, TeamSpec } from "./types";

const round2 = (x: number) => Math.round(x * 100) / 100;

/** `spec` with phase `name` inserted where `order` (the catalogue's phase order) puts it; a spec that lists
 * no phases has the library's `defaults` (the catalogue's `defaults.evolution.phases`). */
export function withPhase(spec: TeamSpec, name: string, order: string[], defaults: PhaseSpec[]): TeamSpec {
  const phases = spec.evolution?.phases ?? defaults;
  if (phases.some((p) => p.name === name)) return spec;
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  const at = phases.filter((p) => rank(p.name) < rank(name)).length;
  const before = phases[at - 1];
  const after = phases[at];
  const threshold = round2(((before?.threshold ?? 0) + (after?.threshold ?? 1)) / 2);
  const neighbour = (before ?? after)?.name;
  const next: TeamSpec = {
    ...spec,
    evolution: { ...spec.evolution, phases: [...phases.slice(0, at), { name, threshold }, ...phases.slice(at)] },
  };
  if (spec.reward?.terms && neighbour) {
    next.reward = {
      ...spec.reward,
      terms: spec.reward.terms.map((t) =>
        t.weights[neighbour] === undefined ? t : { ...t, weights: { ...t.weights, [name]: t.weights[neighbour] } },
      ),
    };
  }
  return next;
}

/** `spec` without phase `name`, and without the reward weights it held (the validator refuses those). */
export function withoutPhase(spec: TeamSpec, name: string, defaults: PhaseSpec[]): TeamSpec {
  const phases = (spec.evolution?.phases ?? defaults).filter((p) => p.name !== name);
  const next: TeamSpec = { ...spec, evolution: { ...spec.evolution, phases } };
  if (spec.reward?.terms) {
    next.reward = {
      ...spec.reward,
      terms: spec.reward.terms.map((t) => {
        const { [name]: _dropped, ...weights } = t.weights;
        return { ...t, weights };
      }),
    };
  }
  return next;
}
