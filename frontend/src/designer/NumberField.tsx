import { useEffect, useState } from "react";
import { useFieldProblem } from "./fieldProblem";

interface Props {
  label: string;
  value: number | undefined;
  onChange: (value: number) => void;
  min?: number;
  max?: number;
  step?: number;
  integer?: boolean;
  hint?: string;
  testId?: string;
  /** The spec path this field edits: a validation error there marks the field and names the problem. */
  path?: string;
}

/** A labelled number input that keeps half-typed text ("0.", "-") until it parses. */
export function NumberField({ label, value, onChange, min, max, step, integer, hint, testId, path }: Props) {
  const [text, setText] = useState(value === undefined ? "" : String(value));
  const [focused, setFocused] = useState(false);
  const problem = useFieldProblem(path);
  useEffect(() => {
    if (!focused) setText(value === undefined ? "" : String(value));
  }, [value, focused]);

  return (
    <label className={problem ? "field has-problem" : "field"} title={problem ?? hint} data-path={path}>
      {label && <span>{label}</span>}
      <input
        type="number"
        value={text}
        min={min}
        max={max}
        step={step ?? (integer ? 1 : "any")}
        data-testid={testId}
        aria-label={label ? undefined : hint}
        aria-invalid={problem ? true : undefined}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
        onChange={(event) => {
          setText(event.target.value);
          const parsed = Number(event.target.value);
          if (event.target.value.trim() !== "" && Number.isFinite(parsed)) onChange(parsed);
        }}
      />
    </label>
  );
}
