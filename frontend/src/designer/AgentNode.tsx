import { Handle, type Node, type NodeProps, Position, useConnection } from "@xyflow/react";

export interface AgentNodeData extends Record<string, unknown> {
  agentId: string;
  role: string;
  roleDescription: string;
  problems: string[];
  diffState: "added" | "changed" | null;
  /** The agents this box plays when it stands for a group (the large team's groups), else null. */
  members: number | null;
}

export type AgentFlowNode = Node<AgentNodeData, "agent">;

/** One agent on the canvas: id, role, and a red badge with its validation problems. */
export function AgentNode({ id, data, selected }: NodeProps<AgentFlowNode>) {
  // While a link is being dragged from another agent, this whole box takes the drop (not only its 10-px
  // dots); the dragged-from dot says which kind of link it makes. Shown only then, so that at other times
  // a press on the box selects or moves the agent.
  const dropTarget = useConnection((c) => c.inProgress && c.fromNode.id !== id);
  const classes = ["agent-node"];
  if (selected) classes.push("selected");
  if (data.problems.length) classes.push("has-problems");
  if (data.diffState) classes.push(`diff-${data.diffState}`);
  return (
    <div className={classes.join(" ")} data-testid={`agent-node-${data.agentId}`} title={data.roleDescription}>
      <Handle id="dep-in" className="handle-dependency" type="target" position={Position.Left} title="Workflow dependency in: this step runs after the one it comes from" />
      <Handle id="comm-in" className="handle-communication" type="target" position={Position.Top} title="Communication link in: messages arrive here" />
      {dropTarget && <Handle id="node-in" className="handle-whole-node" type="target" position={Position.Top} isConnectableStart={false} />}
      <div className="agent-id">{data.agentId}</div>
      <div className="agent-role">{data.role.replaceAll("_", " ")}</div>
      {data.problems.length > 0 && (
        <span className="problem-badge" title={data.problems.join("\n")} data-testid="node-problem-badge">
          {data.problems.length} problem{data.problems.length > 1 ? "s" : ""}
        </span>
      )}
      {data.diffState && <span className="diff-badge">{data.diffState}</span>}
      {data.members !== null && (
        <span className="group-badge" title={`A group of ${data.members} agents that share this role`} data-testid="node-group-badge">
          ×{data.members}
        </span>
      )}
      <Handle id="dep-out" className="handle-dependency" type="source" position={Position.Right} title="Drag from here to another agent: a workflow dependency (that agent's step comes next)" />
      <Handle id="comm-out" className="handle-communication" type="source" position={Position.Bottom} title="Drag from here to another agent: a communication link (this agent may message it)" />
    </div>
  );
}
