import type { Me } from "../runs/types";

/** What the signed-in user may do in a project (mirrors mase_web/accounts/permissions.py). */
export function roleIn(me: Me | null, project: number): string | undefined {
  return me?.memberships.find((m) => m.project === project)?.role;
}

export const mayControlBreaker = (me: Me | null, project: number) =>
  ["operator", "admin"].includes(roleIn(me, project) ?? "");

/** Review (`/review/`) is the operators' and admins' page: others get a 403 there, so no link to it. */
export const mayReview = (me: Me | null, project: number) =>
  Boolean(me?.is_staff) || ["operator", "admin"].includes(roleIn(me, project) ?? "");

export const mayDeploy = (me: Me | null, project: number) =>
  ["product_manager", "admin"].includes(roleIn(me, project) ?? "");
