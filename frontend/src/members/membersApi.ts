/** Typed calls of the project members API (mase_web/accounts/api.py). */
import { api, type Schema } from "../api";

export type Member = Schema<"Member">;
export type MemberRole = Member["role"];
export type MemberInvite = Schema<"MemberInvite">;

const members = (project: number) => `projects/${project}/members/`;

export const membersApi = {
  list: (project: number) => api<Member[]>(members(project)),
  invite: (project: number, invite: MemberInvite) =>
    api<Member>(members(project), { method: "POST", body: JSON.stringify(invite) }),
  changeRole: (project: number, member: number, role: MemberRole) =>
    api<Member>(`${members(project)}${member}/`, { method: "PATCH", body: JSON.stringify({ role }) }),
  remove: (project: number, member: number) => api<object>(`${members(project)}${member}/`, { method: "DELETE" }),
};

/** The roles, in the order the page offers them, with what each may do (mase_web/accounts/permissions.py). */
export const ROLES: { value: MemberRole; label: string; does: string }[] = [
  { value: "product_manager", label: "Product manager", does: "designs workflows, launches runs, deploys" },
  { value: "operator", label: "Operator", does: "watches runs, reviews decisions, controls breakers" },
  { value: "annotator", label: "Annotator", does: "labels tickets' intents in the annotation queue and rates replies" },
  { value: "admin", label: "Project admin", does: "everything, including the members" },
];
