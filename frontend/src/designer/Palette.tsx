import type React from "react";
import { useDesigner } from "./store";
import type { RoleInfo } from "./types";

export const ROLE_MIME = "application/x-mase-role";

interface Props {
  roles: RoleInfo[];
  templateRoles: Set<string>;
}

/** Agent roles to drag onto the canvas: the roles of this workflow's template first, then all others. */
export function Palette({ roles, templateRoles }: Props) {
  const readOnly = useDesigner((s) => s.readOnly);
  const custom = roles.find((r) => r.name === "custom");
  const inUse = roles.filter((r) => r.name !== "custom" && templateRoles.has(r.name));
  const others = roles.filter((r) => r.name !== "custom" && !templateRoles.has(r.name));

  const item = (role: RoleInfo, label?: string) => (
    <li
      key={role.name}
      className={`palette-item${role.name === "custom" ? " custom" : ""}`}
      draggable={!readOnly}
      onDragStart={(event: React.DragEvent) => {
        event.dataTransfer.setData(ROLE_MIME, role.name);
        event.dataTransfer.effectAllowed = "move";
      }}
      title={`${role.description}\nDrag onto the canvas to add this agent.`}
      data-testid={`palette-${role.name}`}
    >
      {label ?? role.name.replaceAll("_", " ")}
    </li>
  );

  return (
    <aside className="palette" aria-label="Agent palette">
      <h2>Agents</h2>
      <p className="hint">Drag a role onto the canvas.</p>
      {custom && <ul>{item(custom, "Custom role (write your own prompt)")}</ul>}
      {inUse.length > 0 && (
        <>
          <h3>In this workflow</h3>
          <ul>{inUse.map((r) => item(r))}</ul>
        </>
      )}
      <h3>{inUse.length ? "Other roles" : "Roles"}</h3>
      <ul>{others.map((r) => item(r))}</ul>
    </aside>
  );
}
