import { useEffect, useState } from "react";
import { runsApi, type TemplateSummary, type WorkflowSummary, type WorkflowVersionSummary } from "./runsApi";

export type SourceKind = "template" | "workflow" | "file";

interface Props {
  project: number | null;
  /** Called with the chosen spec's JSON text and where it came from. */
  onSpec: (text: string, source: Record<string, unknown>) => void;
}

const pretty = (spec: unknown) => JSON.stringify(spec, null, 2);

/** Where the spec of a new run comes from: a gallery template, a published workflow version, or a JSON file. */
export function SpecSource({ project, onSpec }: Props) {
  const [kind, setKind] = useState<SourceKind>("file");
  const [templates, setTemplates] = useState<TemplateSummary[]>([]);
  const [workflows, setWorkflows] = useState<WorkflowSummary[]>([]);
  const [workflow, setWorkflow] = useState<number | null>(null);
  const [versions, setVersions] = useState<WorkflowVersionSummary[]>([]);
  const [error, setError] = useState("");

  useEffect(() => {
    if (kind === "template" && !templates.length) runsApi.templates().then(setTemplates, (e: Error) => setError(e.message));
  }, [kind, templates.length]);

  useEffect(() => {
    if (kind !== "workflow" || project === null) return;
    setWorkflow(null);
    setVersions([]);
    runsApi.workflows(project).then(
      (body) => setWorkflows(body.results.filter((w) => w.latest_version !== null)),
      (e: Error) => setError(e.message),
    );
  }, [kind, project]);

  useEffect(() => {
    if (workflow === null) return;
    runsApi.versions(workflow).then((body) => setVersions(body.results), (e: Error) => setError(e.message));
  }, [workflow]);

  const pickTemplate = (slug: string) => {
    if (!slug) return;
    runsApi.template(slug).then((t) => onSpec(pretty(t.spec), { template: slug }), (e: Error) => setError(e.message));
  };
  const pickVersion = (number: number) => {
    if (workflow === null || !number) return;
    runsApi
      .version(workflow, number)
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
            <input type="radio" name="spec-source" value={value} checked={kind === value} onChange={() => setKind(value)} />
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
            {templates.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name} ({t.agents} agents{t.environment ? `, ${t.environment}` : ", no environment"})
              </option>
            ))}
          </select>
        </label>
      )}
      {kind === "workflow" &&
        (workflows.length === 0 ? (
          <p className="muted">No published workflow in this project yet: publish one in the designer.</p>
        ) : (
          <div className="inline-fields">
            <label>
              Workflow{" "}
              <select value={workflow ?? ""} onChange={(e) => setWorkflow(Number(e.target.value) || null)} aria-label="Workflow">
                <option value="">choose…</option>
                {workflows.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Version{" "}
              <select defaultValue="" key={workflow ?? 0} onChange={(e) => pickVersion(Number(e.target.value))} disabled={!versions.length} aria-label="Version">
                <option value="">choose…</option>
                {versions.map((v) => (
                  <option key={v.number} value={v.number}>
                    v{v.number}
                    {v.note ? ` — ${v.note}` : ""}
                  </option>
                ))}
              </select>
            </label>
          </div>
        ))}
      {error && <p className="error">{error}</p>}
    </fieldset>
  );
}
