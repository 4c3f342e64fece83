import { useQuery } from "@tanstack/react-query";
import { AcceptProposal } from "./AcceptProposal";
import { evolutionApi, proposalSummary, unplacedWords } from "./evolution";

/** New intents proposed from the tickets the team could not place, grouped by meaning: a product manager
 * adds one to the catalogue (the designer's canvas), labels its tickets, and the next generation learns it. */
export function ProposalsPanel({
  deploymentId,
  canDesign,
  routing,
}: {
  deploymentId: number;
  /** A routing team: its scope gate hands the tickets it turns away to a person. */
  routing: boolean;
  /** Product managers and admins put a proposal on the design's canvas. */
  canDesign: boolean;
}) {
  const { data, error } = useQuery({
    queryKey: ["deployments", deploymentId, "intent-proposals"],
    queryFn: () => evolutionApi.proposals(deploymentId),
  });
  return (
    <section className="card" aria-label="Proposed intents">
      <h2>Proposed intents</h2>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {data && (
        <p className="muted" data-testid="unplaced-counts">
          Grouped from what the team could not place: {unplacedWords(data, routing)}.
          {data.proposals.length === 0 && " No group yet among them."}
        </p>
      )}
      {data && data.proposals.length > 0 && (
        <ul data-testid="intent-proposals">
          {data.proposals.map((p) => (
            <li key={p.name}>
              <strong>{p.name}</strong> — {proposalSummary(p)}
              <div className="small muted">
                {p.examples.slice(0, 3).join(" · ")}
              </div>
              {canDesign && (
                <AcceptProposal deploymentId={deploymentId} proposal={p} />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
