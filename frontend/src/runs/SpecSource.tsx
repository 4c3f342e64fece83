import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { workflowQueries } from "../designer/queries";
import { runsApi } from "./runsApi";

export type SourceKind = "template" | "workflow" | "file";

interface Props {
  project: number | null;
  /** Called with the chosen spec's JSON text and where it came from. */
  onSpec: (text: string, source: Record<string, unknown>) => void;
}

const pretty = (spec: unknown) => JSON.stringify(spec, null, 2);

/** Where the spec of a new run comes from: a gallery template, a published workflow version, or a JSON file. */
export function SpecSource({ project, onSpec }: Props) {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<SourceKind>("file");
  // The workflow picked in `project`: another project, or choosing this source again, starts over.
  const [picked, setPicked] = useState<{ project: number | null; workflow: number } | null>(null);
  const workflow = picked?.project === project ? picked.workflow : null;
  const [error, setError] = useState("");
  const templates = useQuery({ ...workflowQueries.templates(), enabled: kind === "template" });
  const workflows = useQuery({
    ...workflowQueries.list(`?project=${project}&page_size=100`),
    enabled: kind === "workflow" && project !== null,
    select: (body) => body.results.filter((w) => w.latest_version !== null),
  });
  const versions = useQuery({ ...workflowQueries.versions(workflow ?? 0), enabled: workflow !== null });
  const loadError = templates.error ?? workflows.error ?? versions.error;

  const pickTemplate = (slug: string) => {
    if (!slug) return;
    runsApi.template(slug).then((t) => onSpec(pretty(t.spec), { template: slug }), (e: Error) => setError(e.message));
  };
  const pickVersion = (number: number) => {
    if (workflow === null || !number) return;
    queryClient
      .fetchQuery(workflowQueries.version(workflow, number))
      .then((v) => onSpec(pretty(v.spec), { workflow, version: number }), (e: Error) => setError(e.message));
  };
  const readFile = (file: File | undefined) => {
    if (!file) return;
    file.text().then((text) => onSpec(text, { file: file.name }), () => setError(`could not read ${file.name}`));
  };

  return (
    <fieldset className="spec-source">
      <legend>Team spec</legend>
      <div className="segmented" role="radiogroup" aria-label="Spec source">
        {(
          [
            ["file", "JSON file or paste"],
            ["workflow", "Published workflow"],
            ["template", "Template"],
          ] as [SourceKind, string][]
        ).map(([value, label]) => (
          <label key={value} className={kind === value ? "run-chip run-chip-on" : "run-chip"}>
            <input
              type="radio"
              name="spec-source"
              value={value}
              checked={kind === value}
              onChange={() => {
                setKind(value);
                setPicked(null);
              }}
            />
            {label}
          </label>
        ))}
      </div>
      {kind === "file" && (
        <label>
          Spec file (.json){" "}
          <input type="file" accept=".json,application/json" onChange={(e) => readFile(e.target.files?.[0])} />
        </label>
      )}
      {kind === "template" && (
        <label>
          Template{" "}
          <select defaultValue="" onChange={(e) => pickTemplate(e.target.value)} aria-label="Template">
            <option value="" disabled>
              choose a template…
            </option>
            {(templates.data ?? []).map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name} ({t.agents} agents{t.environment ? `, ${t.environment}` : ", no environment"})
              </option>
            ))}
          </select>
        </label>
      )}
      {kind === "workflow" &&
        (!workflows.data?.length ? (
          <p className="muted">No published workflow in this project yet: publish one in the designer.</p>
        ) : (
          <div className="inline-fields">
            <label>
              Workflow{" "}
              <select value={workflow ?? ""} onChange={(e) => setPicked(Number(e.target.value) ? { project, workflow: Number(e.target.value) } : null)} aria-label="Workflow">
                <option value="">choose…</option>
                {workflows.data.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Version{" "}
              <select defaultValue="" key={workflow ?? 0} onChange={(e) => pickVersion(Number(e.target.value))} disabled={!versions.data?.results.length} aria-label="Version">
                <option value="">choose…</option>
                {(versions.data?.results ?? []).map((v) => (
                  <option key={v.number} value={v.number}>
                    v{v.number}
                    {v.note ? ` — ${v.note}` : ""}
                  </option>
                ))}
              </select>
            </label>
          </div>
        ))}
      {(error || loadError) && <p className="error">{error || loadError?.message}</p>}
    </fieldset>
  );
}
