/** Typed calls of a large team's deployment routes: its roster and its task stream. */
import { api } from "../../api";
import type { Roster, StreamAnswer } from "./teamTypes";

const post = (body: unknown) =>
  ({ method: "POST", body: JSON.stringify(body) }) as const;

export const teamApi = {
  roster: (deployment: number) =>
    api<Roster>(`deployments/${deployment}/roster/`),
  /** Take ``agent`` offline (online false) or bring it back (operators, admins). */
  switchAgent: (
    deployment: number,
    agent: string,
    online: boolean,
    reason = "",
  ) =>
    api<Roster>(
      `deployments/${deployment}/roster/`,
      post({ agent, online, reason }),
    ),
  sendTasks: (deployment: number, count: number) =>
    api<StreamAnswer>(`deployments/${deployment}/tasks/`, post({ count })),
};

export const rosterKey = (deployment: number) =>
  ["deployments", deployment, "roster"] as const;
