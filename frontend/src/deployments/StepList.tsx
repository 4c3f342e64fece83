import { DecisionCard } from "./DecisionCard";
import { bySteps } from "./format";
import type { Decision } from "./types";

/** Decisions step by step: every agent's decision of step 1, then step 2, … */
export function StepList({ decisions }: { decisions: Decision[] }) {
  return (
    <ol className="steps" data-testid="steps">
      {bySteps(decisions).map(([step, group]) => (
        <li key={step} className="step" data-testid="step">
          <h3>Step {step}</h3>
          <ul className="decisions">
            {group.map((d) => (
              <DecisionCard key={d.agent} decision={d} />
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}
