/** Final metrics that describe the optimiser, not the team: shown folded under "Training diagnostics", each
 * with a plain name and what it tells (a product manager reads the evaluation; an engineer opens these). */
export const DIAGNOSTICS: Record<string, { name: string; means: string }> = {
  policy_loss: { name: "policy loss", means: "PPO's clipped objective on the last batch (negated)" },
  value_loss: { name: "critic error", means: "how far the critic's value estimates were from the returns" },
  entropy: { name: "policy entropy", means: "how undecided the agents' policies still are (higher: exploring)" },
  clip_frac: {
    name: "clipped updates",
    means: "share of steps whose update PPO clipped (large: the policy moved too far per batch)",
  },
  teacher_loss: { name: "teacher loss", means: "error imitating the teacher's corrections" },
  useful_share: {
    name: "useful share",
    means: "share of the last batch worth learning from, the teacher's corrections included",
  },
  useful_share_student: {
    name: "useful share (own steps)",
    means: "share of the team's own steps that did better than the critic expected",
  },
  teacher_samples: { name: "teacher corrections", means: "the teacher's corrections in the last batch" },
};

/** Split measured final metrics into what the evaluation found and the optimiser's diagnostics. */
export function splitDiagnostics(metrics: [string, number][]): {
  evaluation: [string, number][];
  diagnostics: [string, number][];
} {
  return {
    evaluation: metrics.filter(([k]) => !(k in DIAGNOSTICS)),
    diagnostics: metrics.filter(([k]) => k in DIAGNOSTICS),
  };
}
