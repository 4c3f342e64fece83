import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChallengerProgress } from "./ChallengerProgress";
import { evolveWaitText, useNowUntil } from "./evolveWait";
import { GenerationCurve } from "./GenerationCurve";
import { PolicyForm } from "./PolicyForm";
import type { Policy } from "./policyFields";
import { ShadowPanel, shadowApi, shadowKey } from "./ShadowPanel";
import {
  canRollBack,
  curvePoints,
  evolutionApi,
  exportUrl,
  policySummary,
  sliceShortfall,
  timelineRows,
  type Lineage,
} from "./evolution";

interface Props {
  deploymentId: number;
  /** Product managers and admins evolve, promote and roll back; everyone who sees the page reads. */
  canEvolve: boolean;
}

const lineageKey = (id: number) => ["deployments", id, "generations"] as const;

/** The deployment's generations (newest first): exact match on the frozen slice against the parent, the
 * data each added, the reason it was (not) promoted; Evolve, Promote and Roll back for those who deploy. */
export function EvolutionPanel({ deploymentId, canEvolve }: Props) {
  const queryClient = useQueryClient();
  const lineage = useQuery({
    queryKey: lineageKey(deploymentId),
    queryFn: () => evolutionApi.lineage(deploymentId),
    // a challenger training or being compared moves on by itself: look again until it has a verdict
    refetchInterval: (query) =>
      query.state.data?.generations.some(
        (g) => g.phase === "training" || g.phase === "evaluating",
      )
        ? 5000
        : false,
  });
  const done = (fresh?: Lineage) => {
    if (fresh) queryClient.setQueryData(lineageKey(deploymentId), fresh);
    else
      void queryClient.invalidateQueries({
        queryKey: lineageKey(deploymentId),
      });
    void queryClient.invalidateQueries({
      queryKey: ["deployments", deploymentId],
    });
  };
  const evolve = useMutation({
    mutationFn: () => evolutionApi.evolve(deploymentId),
    onSuccess: () => done(),
  });
  const promote = useMutation({
    mutationFn: (n: number) => evolutionApi.promote(deploymentId, n),
    onSuccess: done,
  });
  const rollback = useMutation({
    mutationFn: () => evolutionApi.rollback(deploymentId),
    onSuccess: done,
  });
  const shadow = useMutation({
    mutationFn: (n: number) => shadowApi.start(deploymentId, n),
    onSuccess: (fresh) => {
      queryClient.setQueryData(shadowKey(deploymentId), fresh);
      done();
    },
  });
  const error = evolve.error ?? promote.error ?? rollback.error ?? shadow.error;
  const data = lineage.data;
  const busy =
    evolve.isPending ||
    promote.isPending ||
    rollback.isPending ||
    shadow.isPending;

  const shortfall = data ? sliceShortfall(data.slice_tickets, data.policy) : null;
  // the API's own reason to refuse Evolve now (an empty slice): said here instead of a 400 after the click
  const refusal = data?.evolve_refusal ?? null;
  // within the minimum interval since the last challenger: a 429 after the click, so said (and off) before
  const wait = evolveWaitText(data?.evolve_after, useNowUntil(data?.evolve_after));
  return (
    <section className="card" aria-label="Generations">
      <h2>Generations</h2>
      {data && (
        <>
          <p className="small muted">
            Each challenger is judged on the evaluation slice: {data.slice_tickets} reviewed{" "}
            {data.slice_tickets === 1 ? "ticket" : "tickets"} (confirmed or corrected in Review) that no generation
            trains on.{" "}
            <span data-testid="evolution-policy">
              {policySummary(data.policy)}
            </span>
          </p>
          <PolicyForm
            key={JSON.stringify(data.policy)}
            deploymentId={deploymentId}
            policy={data.policy as Policy}
            canEdit={canEvolve}
            onSaved={() => done()}
          />
          <GenerationCurve points={curvePoints(data)} />
          <p className="small">
            Export the lineage:{" "}
            <a href={exportUrl(deploymentId, "csv")} download>
              CSV
            </a>{" "}
            ·{" "}
            <a href={exportUrl(deploymentId, "json")} download>
              JSON
            </a>
          </p>
        </>
      )}
      {canEvolve && (
        <p>
          <button
            type="button"
            disabled={busy || refusal !== null || wait !== null}
            title={wait ?? undefined}
            onClick={() => evolve.mutate()}
          >
            Evolve
          </button>{" "}
          {data && canRollBack(data) && (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => rollback.mutate()}
            >
              Roll back
            </button>
          )}
        </p>
      )}
      {canEvolve && refusal && (
        <p className="small muted" data-testid="evolve-refusal">
          Evolve is off: {refusal}.
        </p>
      )}
      {canEvolve && wait && (
        <p className="small muted" data-testid="evolve-wait">
          Evolve is off within the deployment&apos;s minimum interval between evolutions: {wait}.
        </p>
      )}
      {canEvolve && !refusal && shortfall && (
        <p className="small muted" data-testid="slice-shortfall">
          {shortfall}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {data?.generations
        .filter((g) => g.phase === "training")
        .map((g) => (
          <ChallengerProgress
            key={g.number}
            generation={g.number}
            run={g.run}
          />
        ))}
      <ShadowPanel deploymentId={deploymentId} canEvolve={canEvolve} />
      {data && (
        <table className="run-table" data-testid="generations">
          <thead>
            <tr>
              <th>Generation</th>
              <th>Status</th>
              <th>Exact match on the slice</th>
              <th>Data</th>
              <th>Reason</th>
              <th>Promoted by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {timelineRows(data).map((row) => (
              <tr key={row.number} data-testid={`generation-${row.number}`}>
                <td>
                  {row.number} <a href={`/runs/${row.run}/`}>run {row.run}</a>
                </td>
                <td>{row.status}</td>
                <td>{row.figure}</td>
                <td className="small">{row.added}</td>
                <td className="small">{row.reason}</td>
                <td>{row.promoted}</td>
                <td>
                  {canEvolve && row.canPromote && (
                    <button
                      type="button"
                      className="secondary"
                      disabled={busy}
                      onClick={() => promote.mutate(row.number)}
                    >
                      Promote
                    </button>
                  )}
                  {canEvolve && row.canPromote && row.status !== "shadow" && (
                    <button
                      type="button"
                      className="secondary"
                      disabled={busy}
                      onClick={() => shadow.mutate(row.number)}
                    >
                      Run in shadow
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
