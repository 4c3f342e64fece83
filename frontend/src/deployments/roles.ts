import type { Me } from "../runs/types";

/** What the signed-in user may do in a project (mirrors mase_web/accounts/permissions.py). */
export function roleIn(me: Me | null, project: number): string | undefined {
  return me?.memberships.find((m) => m.project === project)?.role;
}

export const mayControlBreaker = (me: Me | null, project: number) =>
  ["operator", "admin"].includes(roleIn(me, project) ?? "");

export const mayDeploy = (me: Me | null, project: number) =>
  ["product_manager", "admin"].includes(roleIn(me, project) ?? "");
