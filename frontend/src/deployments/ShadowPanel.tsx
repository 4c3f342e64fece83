import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, type Schema } from "../api";

type Shadow = Schema<"Shadow">;

export const shadowApi = {
  get: (id: number) => api<Shadow>(`deployments/${id}/shadow/`),
  start: (id: number, number: number) =>
    api<Shadow>(`deployments/${id}/generations/${number}/shadow/`, {
      method: "POST",
      body: "{}",
    }),
  stop: (id: number) =>
    api<Shadow>(`deployments/${id}/shadow/`, { method: "DELETE" }),
};

export const shadowKey = (id: number) => ["deployments", id, "shadow"] as const;

/** The candidate in shadow: how often it agrees with the champion on live tickets, and where it does not
 * (each ticket linked to review). Its answers never reach a customer. */
export function ShadowPanel({
  deploymentId,
  canEvolve,
}: {
  deploymentId: number;
  canEvolve: boolean;
}) {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: shadowKey(deploymentId),
    queryFn: () => shadowApi.get(deploymentId),
    refetchInterval: (query) => (query.state.data?.generation ? 5000 : false),
  });
  const stop = useMutation({
    mutationFn: () => shadowApi.stop(deploymentId),
    onSuccess: (fresh) => {
      queryClient.setQueryData(shadowKey(deploymentId), fresh);
      void queryClient.invalidateQueries({
        queryKey: ["deployments", deploymentId, "generations"],
      });
    },
  });
  if (!data?.generation) return null;
  const tickets = `${data.tickets} live ${data.tickets === 1 ? "ticket" : "tickets"}`;
  const agreement =
    data.agreement === null
      ? "It has answered no live ticket yet"
      : `Agrees with the champion on ${(100 * data.agreement).toFixed(1)} % of ${tickets} (${data.agreed} agreed)`;
  return (
    <div className="shadow-panel" data-testid="shadow">
      <h3>Generation {data.generation} in shadow</h3>
      <p>
        {agreement}; its answers never reach a customer.{" "}
        {canEvolve && (
          <button
            type="button"
            className="secondary"
            disabled={stop.isPending}
            onClick={() => stop.mutate()}
          >
            End shadow
          </button>
        )}
      </p>
      {data.disagreements.length > 0 && (
        <table className="run-table" data-testid="shadow-disagreements">
          <thead>
            <tr>
              <th>Ticket</th>
              <th>Champion</th>
              <th>Shadow</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.disagreements.map((d) => (
              <tr key={d.episode}>
                <td>{d.text}</td>
                <td>{d.champion.join(", ") || "none"}</td>
                <td>{d.shadow.join(", ") || "none"}</td>
                <td>
                  <a href={`/review/?episode=${d.episode}`}>review</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
