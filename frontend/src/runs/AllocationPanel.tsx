import { useMemo } from "react";
import { backlogGrid, messageCost, shadeColor, stormReport, topWinners } from "./allocation";
import type { AllocationPayload } from "./events.generated";

const CELL_HEIGHT = 6;
const PLOT_WIDTH = 600;
const LABEL_WIDTH = 110;

const MODES: Record<string, string> = {
  auction: "learned bids",
  fixed_auction: "the fixed auction",
  central: "a central router",
  round_robin: "round-robin",
};

/**
 * A large team's last evaluation episode (the "allocation" event): each agent's backlog as each task arrived
 * (rows = agents, columns = tasks, darker = busier), who won the most tasks, what gossip cost beside the
 * central controller, and the message storms with the reputations they cost.
 */
export function AllocationPanel({ summary }: { summary: AllocationPayload | null }) {
  const grid = useMemo(() => (summary ? backlogGrid(summary) : null), [summary]);
  if (!summary || !grid) return null;
  const cost = messageCost(summary);
  const winners = topWinners(summary);
  const storms = stormReport(summary);
  const cellWidth = grid.cols > 0 ? PLOT_WIDTH / grid.cols : 0;
  const labelEvery = Math.max(1, Math.ceil(grid.rows / 20)); // at most ~20 agent names down the side
  const height = grid.rows * CELL_HEIGHT;
  const first = summary.tasks[0];
  const last = summary.tasks[summary.tasks.length - 1];
  return (
    <section className="card allocation-panel" data-testid="allocation" aria-label="Task allocation">
      <h2>Task allocation</h2>
      <p className="muted">
        {summary.agents.length} agents, tasks given by {MODES[summary.allocation] ?? summary.allocation}; state kept by{" "}
        {summary.state_sync === "gossip" ? "gossip" : "a central controller"}
        {summary.step != null && <> · evaluated at episode {summary.step}</>}. {summary.dropped} task{summary.dropped === 1 ? "" : "s"} nobody took.
      </p>
      <p data-testid="allocation-messages">
        {cost.sentence}
        {cost.ratio != null && summary.state_sync === "gossip" && (
          <span className="allocation-ratio" aria-hidden="true">
            <span className="allocation-ratio-bar" style={{ width: `${Math.min(100, cost.ratio * 100)}%` }} />
          </span>
        )}
      </p>
      {storms.sentence && (
        <p data-testid="allocation-storms">
          {storms.sentence}
          {storms.lowest.length > 0 && (
            <span className="muted">
              {" "}
              Lowest reputations: {storms.lowest.map((r) => `${r.agent} ${r.reputation.toFixed(2)}`).join(", ")}.
            </span>
          )}
        </p>
      )}
      {grid.cols > 0 && (
        <figure className="allocation-heatmap">
          <figcaption className="muted">
            Backlog per agent as tasks {first}–{last} arrived (darkest: {grid.max.toFixed(1)} time units)
          </figcaption>
          <svg
            width={LABEL_WIDTH + PLOT_WIDTH}
            height={height + 4}
            role="img"
            aria-label="Backlog heat map, agents by tasks"
            data-testid="allocation-heatmap"
          >
            {summary.agents.map((agent, row) =>
              row % labelEvery === 0 ? (
                <text key={agent} x={LABEL_WIDTH - 4} y={row * CELL_HEIGHT + CELL_HEIGHT} textAnchor="end" fontSize={9}>
                  {agent}
                </text>
              ) : null,
            )}
            {grid.cells.map((c) => (
              <rect
                key={`${c.row}-${c.col}`}
                x={LABEL_WIDTH + c.col * cellWidth}
                y={c.row * CELL_HEIGHT}
                width={cellWidth}
                height={CELL_HEIGHT}
                fill={shadeColor(c.shade)}
              >
                <title>{`${c.agent}, task ${c.task}: backlog ${c.backlog.toFixed(2)}`}</title>
              </rect>
            ))}
          </svg>
        </figure>
      )}
      {winners.length > 0 && (
        <p className="muted" data-testid="allocation-winners">
          Most tasks won: {winners.map((w) => `${w.agent} ${w.wins} (${Math.round(w.share * 100)}%)`).join(", ")}
        </p>
      )}
    </section>
  );
}
