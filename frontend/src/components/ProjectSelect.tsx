import type { Membership } from "../runs/types";

interface Props {
  projects: Membership[];
  value: number | null;
  onChange: (project: number) => void;
  className?: string;
}

/** A labelled choice among the projects the user may act in (by name, valued by id). */
export function ProjectSelect({ projects, value, onChange, className }: Props) {
  return (
    <label className={className}>
      Project
      <select value={value ?? ""} onChange={(e) => onChange(Number(e.target.value))} aria-label="Project">
        {projects.map((m) => (
          <option key={m.project} value={m.project}>
            {m.project_name}
          </option>
        ))}
      </select>
    </label>
  );
}
