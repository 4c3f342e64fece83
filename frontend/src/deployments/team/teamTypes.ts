/** A large team's deployment: its roster (mase_web/deployments/roster.py), the task stream's answer
 * (mase_web/deployments/task_stream.py) and the stream events of both. */

export interface RosterGroup {
  id: string;
  members: string[];
}

export interface AgentSwitch {
  agent: string;
  online: boolean;
  reason: string;
  actor: string | null;
  created_at: string;
}

/** GET/POST deployments/<id>/roster/. */
export interface Roster {
  groups: RosterGroup[];
  offline: string[];
  switches: AgentSwitch[];
}

/** One task's allocation as the environment reports it (agents/envs/large_team/env.py). */
export interface TaskAllocation {
  task: number;
  kind: string;
  bids: Record<string, number>;
  winner: string | null;
}

/** The team's load after a task: backlog (time units) and online per agent, in roster order. */
export interface TeamLoad {
  backlog: number[];
  online: boolean[];
  handed_over: number;
}

export interface AllocationEvent {
  kind: "allocation";
  episode: number;
  request_id: string;
  step: number;
  allocation: TaskAllocation;
  load: TeamLoad;
}

export interface RosterEvent {
  kind: "roster";
  offline: string[];
  switch: AgentSwitch;
}

/** POST deployments/<id>/tasks/: the stored episode and the stream's figures (decisions are in the log). */
export interface StreamAnswer {
  episode: { id: number; request_id: string };
  result: {
    request_id: string;
    status: string;
    steps: number;
    info: {
      in_time?: number;
      dropped?: number;
      lost?: number;
      load?: TeamLoad;
    };
  };
}
