import { useMemo } from "react";
import { shadeColor } from "../../runs/allocation";
import {
  type LoadColumn,
  lastAllocationText,
  loadCells,
  winsShown,
} from "./teamLoad";

/** Row height: readable rows (a 12 px label) up to 30 agents, then thin rows with every k-th agent named. */
const rowHeight = (agents: number) => (agents <= 30 ? 16 : 8);
const PLOT_WIDTH = 600;
const LABEL_WIDTH = 110;

/** The team's backlog per agent over the last tasks (rows = agents, columns = tasks, darker = busier), a dot
 * where an agent won the task and a hatched row where it was offline; live from the "allocation" events. */
export function LoadHeatmap({
  columns,
  agents,
}: {
  columns: LoadColumn[];
  agents: string[];
}) {
  const { cells, max } = useMemo(
    () => loadCells(columns, agents),
    [columns, agents],
  );
  if (columns.length === 0 || agents.length === 0)
    return (
      <p className="muted">
        No task allocated since this page opened: send a stream of tasks.
      </p>
    );
  const cellWidth = PLOT_WIDTH / Math.max(columns.length, 20);
  const labelEvery = Math.max(1, Math.ceil(agents.length / 25));
  const cellHeight = rowHeight(agents.length);
  const winners = winsShown(columns);
  return (
    <figure className="allocation-heatmap">
      <figcaption className="muted">
        Backlog per agent after each of the last {columns.length} tasks
        (darkest: {max.toFixed(1)} time units; a dot: who won the task)
      </figcaption>
      <svg
        width={LABEL_WIDTH + PLOT_WIDTH}
        height={agents.length * cellHeight + 4}
        role="img"
        aria-label="Backlog heat map, agents by tasks"
        data-testid="load-heatmap"
        data-columns={columns.length}
      >
        {agents.map((agent, row) =>
          row % labelEvery === 0 ? (
            <text
              key={agent}
              x={LABEL_WIDTH - 4}
              y={row * cellHeight + cellHeight - (cellHeight > 8 ? 3 : 0)}
              textAnchor="end"
              fontSize={cellHeight > 8 ? 12 : 9}
            >
              {agent}
            </text>
          ) : null,
        )}
        {cells.map((c) => (
          <rect
            key={`${c.row}-${c.col}`}
            x={LABEL_WIDTH + c.col * cellWidth}
            y={c.row * cellHeight}
            width={cellWidth}
            height={cellHeight}
            fill={c.online ? shadeColor(c.shade) : "#d0d0d8"}
            data-agent={c.agent}
            data-col={c.col}
            data-backlog={c.backlog.toFixed(3)}
            data-online={c.online ? "1" : "0"}
            data-bid={c.bid ?? ""}
          >
            <title>{`${c.agent}, task ${columns[c.col]?.task}: backlog ${c.backlog.toFixed(2)}, ${c.bid === null ? "no bid" : `bid ${c.bid}`}${c.won ? ", won it" : ""}${c.online ? "" : " (offline)"}`}</title>
          </rect>
        ))}
        {cells
          .filter((c) => c.won)
          .map((c) => (
            <circle
              key={`w-${c.col}`}
              cx={LABEL_WIDTH + (c.col + 0.5) * cellWidth}
              cy={c.row * cellHeight + cellHeight / 2}
              r={Math.min(2.5, cellWidth / 3)}
              fill="#1d3557"
              data-winner={c.agent}
              data-col={c.col}
            />
          ))}
      </svg>
      <p className="muted small" data-testid="load-last">
        {lastAllocationText(columns)}
        {winners.length > 0 && (
          <>
            {" "}
            Most won here:{" "}
            {winners.map((w) => `${w.agent} ${w.wins}`).join(", ")}.
          </>
        )}
      </p>
    </figure>
  );
}
