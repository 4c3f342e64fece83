import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ErrorList } from "../feedback/ErrorList";
import { type Member, type MemberRole, ROLES, membersApi } from "./membersApi";

interface Props {
  project: number;
  member: Member;
  canManage: boolean;
}

/** One member: their role (a choice for admins) and, for admins, a button that removes them. */
export function MemberRow({ project, member, canManage }: Props) {
  const queryClient = useQueryClient();
  const reread = () => queryClient.invalidateQueries({ queryKey: ["members", project] });
  const changing = useMutation({
    mutationFn: (role: MemberRole) => membersApi.changeRole(project, member.id, role),
    onSettled: reread,
  });
  const removing = useMutation({ mutationFn: () => membersApi.remove(project, member.id), onSuccess: reread });
  return (
    <tr data-testid={`member-${member.username}`}>
      <td>{member.username}</td>
      <td>{member.email}</td>
      <td>
        {canManage ? (
          <select
            aria-label={`Role of ${member.username}`}
            value={member.role}
            disabled={changing.isPending}
            onChange={(e) => changing.mutate(e.target.value as MemberRole)}
          >
            {ROLES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        ) : (
          member.role_label
        )}
        <ErrorList error={changing.error ?? removing.error} />
      </td>
      {canManage && (
        <td>
          <button
            type="button"
            className="secondary"
            disabled={removing.isPending}
            onClick={() => {
              if (window.confirm(`Remove ${member.username} from the project?`)) removing.mutate();
            }}
          >
            Remove
          </button>
        </td>
      )}
    </tr>
  );
}
