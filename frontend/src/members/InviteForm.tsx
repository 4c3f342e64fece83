import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorList } from "../feedback/ErrorList";
import { type MemberRole, ROLES, membersApi } from "./membersApi";

/** Adds an existing user, named by username or email, with a role; the member list is re-read after. */
export function InviteForm({ project }: { project: number }) {
  const queryClient = useQueryClient();
  const [user, setUser] = useState("");
  const [role, setRole] = useState<MemberRole>("annotator");
  const inviting = useMutation({
    mutationFn: () => membersApi.invite(project, { user, role }),
    onSuccess: () => {
      setUser("");
      void queryClient.invalidateQueries({ queryKey: ["members", project] });
    },
  });
  return (
    <form className="card" aria-label="Add a member" onSubmit={(e) => { e.preventDefault(); inviting.mutate(); }}>
      <h2>Add a member</h2>
      <label className="field">
        Username or email
        <input value={user} onChange={(e) => setUser(e.target.value)} required maxLength={254} />
      </label>
      <label className="field">
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
          {ROLES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}: {r.does}
            </option>
          ))}
        </select>
      </label>
      <ErrorList error={inviting.error} />
      <button type="submit" disabled={inviting.isPending}>
        Add member
      </button>
    </form>
  );
}
