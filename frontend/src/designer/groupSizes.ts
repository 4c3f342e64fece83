import type { EnvParam, Json } from "./types";

// A group line's head, "<id>*<count>:" (agents/envs/large_team/groups.py): the id is the group's agent on the canvas.
const GROUP_HEAD = /^\s*([a-z][a-z0-9_]{0,39})\s*(?:\*\s*([0-9]+))?\s*:/;

/** How many agents each agent on the canvas plays where the environment draws its team by groups (a
 * `groups` parameter of one group a line, the large team's): the group's count, by its id. Empty for
 * every other environment; a line that does not parse is left to the validator. */
export function groupSizes(environment: { name?: string | null; params?: Record<string, Json> } | undefined, described: Record<string, EnvParam[]>): Record<string, number> {
  const param = environment?.name ? described[environment.name]?.find((p) => p.name === "groups" && p.kind === "lines") : undefined;
  if (!param) return {};
  const lines = environment?.params?.groups ?? param.default;
  const sizes: Record<string, number> = {};
  for (const line of Array.isArray(lines) ? lines : []) {
    const head = typeof line === "string" ? GROUP_HEAD.exec(line) : null;
    if (head) sizes[head[1]] = Number(head[2] ?? 1);
  }
  return sizes;
}
