import { reportsNoAttention } from "./attentionReports";
import { useAlgorithms } from "./useAlgorithms";

interface Edge {
  source?: unknown;
  target?: unknown;
  kind?: unknown;
}

interface Props {
  /** The trainer's algorithm as its "started" event said (null before it started). */
  algorithm: string | null;
  ended: boolean;
  spec: Record<string, unknown> | undefined;
}

/** The designed communication links of a spec, "a → b". */
function designedLinks(spec: Props["spec"]): string[] {
  const edges = Array.isArray(spec?.edges) ? (spec.edges as Edge[]) : [];
  return edges
    .filter((e) => e.kind === "communication" && typeof e.source === "string" && typeof e.target === "string")
    .map((e) => `${String(e.source)} → ${String(e.target)}`);
}

/**
 * What the communication card says while a run has no attention report: still waiting (it will come),
 * or that this run has none, with the links the team was designed with.
 */
export function NoCommunication({ algorithm, ended, spec }: Props) {
  // Whether the trainer records attention at all is the catalogue's word (its algorithms' `messages`).
  const silent = reportsNoAttention(algorithm, useAlgorithms(algorithm !== null));
  const none = ended || silent;
  const links = designedLinks(spec);
  return (
    <section className="card" data-testid="communication-none">
      <h2>Communication graph</h2>
      {!none ? (
        <p className="muted">No attention report yet: the graph appears with the first one.</p>
      ) : (
        <>
          <p>
            This run reports no learned communication: {silent && algorithm ? `its trainer (${algorithm.toUpperCase()}) does not record who listened to whom` : "it ended without an attention report"}
            , so there is no graph of who told what to whom. The messages it sent are counted in the learning curves.
          </p>
          {links.length > 0 && (
            <details>
              <summary className="muted">The {links.length} communication links the team was designed with</summary>
              <ul className="designed-links">
                {links.map((l) => (
                  <li key={l}>{l}</li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
    </section>
  );
}
