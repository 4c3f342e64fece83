import { useEffect, useState } from "react";

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
}

/** A labelled number input that keeps half-typed text ("0.", "-") until it parses. */
export function NumberField({ label, value, onChange, min, max, step, integer, hint, testId }: Props) {
  const [text, setText] = useState(value === undefined ? "" : String(value));
  const [focused, setFocused] = useState(false);
  useEffect(() => {
    if (!focused) setText(value === undefined ? "" : String(value));
  }, [value, focused]);

  return (
    <label className="field" title={hint}>
      {label && <span>{label}</span>}
      <input
        type="number"
        value={text}
        min={min}
        max={max}
        step={step ?? (integer ? 1 : "any")}
        data-testid={testId}
        aria-label={label ? undefined : hint}
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
