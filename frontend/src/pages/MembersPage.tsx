import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ProjectSelect } from "../components/ProjectSelect";
import { InviteForm } from "../members/InviteForm";
import { MemberRow } from "../members/MemberRow";
import { membersApi } from "../members/membersApi";
import { runQueries } from "../runs/queries";

/** The members of the projects the user administers: add one by username or email, change a role, remove
 * one. The server keeps at least one admin per project and says so when a change would leave none. */
export function MembersPage() {
  const { data: me, error: meError } = useQuery(runQueries.me());
  const projects = (me?.memberships ?? []).filter((m) => m.role === "admin");
  const [chosen, setChosen] = useState<number | null>(null);
  const project = chosen ?? projects[0]?.project ?? null;
  const { data: members = [], error: membersError } = useQuery({
    queryKey: ["members", project],
    queryFn: () => membersApi.list(project ?? 0),
    enabled: project !== null,
  });
  const error = (membersError ?? meError)?.message;
  return (
    <main className="page runs-ui members-ui">
      <h1>Members</h1>
      {error && <p className="error" role="alert">{error}</p>}
      {me && projects.length === 0 && (
        <p className="empty-state">You are an admin of no project: a project's admins manage its members.</p>
      )}
      {projects.length > 1 && <ProjectSelect className="field" projects={projects} value={project} onChange={setChosen} />}
      {project !== null && (
        <>
          <section className="card" aria-label="Members">
            <table className="list">
              <thead>
                <tr>
                  <th>User</th>
                  <th>Email</th>
                  <th>Role</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {members.map((member) => (
                  <MemberRow key={member.id} project={project} member={member} canManage />
                ))}
              </tbody>
            </table>
          </section>
          <InviteForm project={project} />
        </>
      )}
    </main>
  );
}
