import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatTime } from "../../runs/format";
import { ErrorList } from "../ErrorList";
import { apiErrorLines } from "../format";
import { rosterKey, teamApi } from "./teamApi";
import type { Roster, RosterGroup } from "./teamTypes";

interface Props {
  deploymentId: number;
  roster: Roster;
  canControl: boolean;
}

/** Who is online, group by group: one row per group (its count online, a picker and one button), the offline
 * agents listed with "Bring back", and the latest switches (who, when, why). A hundred agents stay five rows. */
export function RosterControls({ deploymentId, roster, canControl }: Props) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState("");
  const toggle = useMutation({
    mutationFn: ({ agent, online }: { agent: string; online: boolean }) =>
      teamApi.switchAgent(deploymentId, agent, online, reason),
    onSuccess: (fresh) => {
      queryClient.setQueryData(rosterKey(deploymentId), fresh);
      setReason("");
    },
  });
  const offline = new Set(roster.offline);
  return (
    <div className="roster" data-testid="roster">
      <table className="roster-groups">
        <thead>
          <tr>
            <th>Group</th>
            <th>Online</th>
            {canControl && <th>Take offline</th>}
            <th>Offline</th>
          </tr>
        </thead>
        <tbody>
          {roster.groups.map((g) => (
            <GroupRow
              key={g.id}
              group={g}
              offline={offline}
              canControl={canControl}
              busy={toggle.isPending}
              onSwitch={(agent, online) => toggle.mutate({ agent, online })}
            />
          ))}
        </tbody>
      </table>
      {canControl && (
        <label className="field">
          Reason (optional)
          <input
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={500}
          />
        </label>
      )}
      <ErrorList lines={apiErrorLines(toggle.error)} />
      {roster.switches.length > 0 && (
        <ul
          className="muted small roster-switches"
          data-testid="roster-switches"
        >
          {roster.switches.slice(0, 5).map((s, i) => (
            <li key={`${s.created_at}-${i}`}>
              {s.agent} {s.online ? "brought back" : "taken offline"} by{" "}
              {s.actor ?? "–"} at {formatTime(s.created_at)}
              {s.reason && <> — “{s.reason}”</>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

interface RowProps {
  group: RosterGroup;
  offline: Set<string>;
  canControl: boolean;
  busy: boolean;
  onSwitch: (agent: string, online: boolean) => void;
}

function GroupRow({ group, offline, canControl, busy, onSwitch }: RowProps) {
  const online = group.members.filter((m) => !offline.has(m));
  const away = group.members.filter((m) => offline.has(m));
  const [picked, setPicked] = useState("");
  const chosen = online.includes(picked) ? picked : (online[0] ?? "");
  return (
    <tr data-testid={`roster-group-${group.id}`}>
      <th scope="row">{group.id}</th>
      <td>
        {online.length} of {group.members.length}
      </td>
      {canControl && (
        <td>
          <select
            aria-label={`Agent of ${group.id} to take offline`}
            value={chosen}
            onChange={(e) => setPicked(e.target.value)}
            disabled={online.length === 0}
          >
            {online.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>{" "}
          <button
            type="button"
            className="danger"
            disabled={busy || !chosen}
            onClick={() => onSwitch(chosen, false)}
          >
            Take offline
          </button>
        </td>
      )}
      <td>
        {away.length === 0 && <span className="muted">none</span>}
        {away.map((m) => (
          <span key={m} className="roster-offline" data-testid={`offline-${m}`}>
            {m}
            {canControl && (
              <button
                type="button"
                className="secondary"
                disabled={busy}
                onClick={() => onSwitch(m, true)}
              >
                Bring back
              </button>
            )}
          </span>
        ))}
      </td>
    </tr>
  );
}
