import { StateBadge } from "./StateBadge";
import { TeamSource } from "./TeamSource";
import { formatDuration, formatTime } from "./format";
import type { RunSummary } from "./types";

interface Props {
  run: RunSummary;
  projectName: string;
  selected: boolean;
  onToggle: () => void;
}

/** One row of the runs list. */
export function RunRow({ run, projectName, selected, onToggle }: Props) {
  return (
    <tr>
      <td>
        <input type="checkbox" aria-label={`Select run ${run.name}`} checked={selected} onChange={onToggle} />
      </td>
      <td>
        <a href={`/runs/${run.id}/`}>
          #{run.id} {run.name}
        </a>
      </td>
      <td>
        <StateBadge state={run.state} cancelling={run.cancel_requested} />
      </td>
      <td>{projectName}</td>
      <td>
        <TeamSource source={run.source} />
      </td>
      <td>
        {run.kind} · {run.device}
      </td>
      <td>
        {(run.tags ?? []).map((t) => (
          <span key={t} className="tag-chip">
            {t}
          </span>
        ))}
      </td>
      <td>{formatTime(run.created_at)}</td>
      <td>{formatDuration(run.started_at, run.finished_at)}</td>
      <td>{run.created_by ?? "–"}</td>
    </tr>
  );
}
