/** Where a run's team spec came from, as the server recorded it at launch: a link to the published workflow
 * version, the gallery template it was launched from, or "spec document" (a file, a paste or an edited spec). */
export function TeamSource({ source }: { source: Record<string, unknown> | null | undefined }) {
  if (source?.kind === "workflow" && source.workflow !== undefined)
    return (
      <a href={`/workflows/${String(source.workflow)}/`}>
        {String(source.workflow_name ?? `workflow ${String(source.workflow)}`)} v{String(source.version ?? "?")}
      </a>
    );
  if (source?.kind === "template" && typeof source.template === "string")
    return <span>{String(source.template_name ?? source.template)} (gallery template)</span>;
  return <span className="muted">spec document</span>;
}
