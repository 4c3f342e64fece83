import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";

export interface AgentNodeData extends Record<string, unknown> {
  agentId: string;
  role: string;
  roleDescription: string;
  problems: string[];
  diffState: "added" | "changed" | null;
}

export type AgentFlowNode = Node<AgentNodeData, "agent">;

/** One agent on the canvas: id, role, and a red badge with its validation problems. */
export function AgentNode({ data, selected }: NodeProps<AgentFlowNode>) {
  const classes = ["agent-node"];
  if (selected) classes.push("selected");
  if (data.problems.length) classes.push("has-problems");
  if (data.diffState) classes.push(`diff-${data.diffState}`);
  return (
    <div className={classes.join(" ")} data-testid={`agent-node-${data.agentId}`} title={data.roleDescription}>
      <Handle type="target" position={Position.Left} title="Drop a connection here" />
      <div className="agent-id">{data.agentId}</div>
      <div className="agent-role">{data.role.replaceAll("_", " ")}</div>
      {data.problems.length > 0 && (
        <span className="problem-badge" title={data.problems.join("\n")} data-testid="node-problem-badge">
          {data.problems.length} problem{data.problems.length > 1 ? "s" : ""}
        </span>
      )}
      {data.diffState && <span className="diff-badge">{data.diffState}</span>}
      <Handle type="source" position={Position.Right} title="Drag from here to another agent to connect" />
    </div>
  );
}
