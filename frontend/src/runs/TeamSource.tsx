/** Where a run's team spec came from: a link to the published workflow version, or "spec document". */
export function TeamSource({ source }: { source: Record<string, unknown> | null | undefined }) {
  if (source?.kind === "workflow" && source.workflow !== undefined)
    return (
      <a href={`/workflows/${String(source.workflow)}/`}>
        {String(source.workflow_name ?? `workflow ${String(source.workflow)}`)} v{String(source.version ?? "?")}
      </a>
    );
  return <span className="muted">spec document</span>;
}
