import { useEffect, useState } from "react";
import { ApiError } from "../api";
import { ProjectSelect } from "../components/ProjectSelect";
import { FieldErrors } from "./FieldErrors";
import { NoWorkerNotice } from "./NoWorkerNotice";
import { parseTags } from "./RunTags";
import { SpecSource } from "./SpecSource";
import { runsApi } from "./runsApi";
import type { Membership } from "./types";
import { useWorkers } from "./useWorkers";

const LAUNCH_ROLES = new Set(["product_manager", "admin"]);

/** The run name once another spec is chosen: the spec's own name, unless the user typed a name of their own. */
export function runNameAfterSpec(name: string, autoName: string, specText: string): string {
  if (name && name !== autoName) return name;
  try {
    const spec = JSON.parse(specText) as { name?: unknown };
    return typeof spec.name === "string" ? spec.name : name;
  } catch {
    return name; // the JSON error is reported on launch
  }
}

/** What the launch sends for the team: an untouched published version or gallery template by reference, so
 * the server records (and checks) where the run came from; anything else, or an edited spec, as the document. */
export function specReference(
  source: Record<string, unknown>,
  edited: boolean,
  spec: unknown,
): { workflow: number; version: number } | { template: string } | { spec: unknown } {
  if (!edited && typeof source.workflow === "number" && typeof source.version === "number")
    return { workflow: source.workflow, version: source.version };
  if (!edited && typeof source.template === "string") return { template: source.template };
  return { spec };
}

/** Launch a run: project, name, device, and a team spec from a template, a workflow version or a file. */
export function LaunchForm({ memberships }: { memberships: Membership[] }) {
  const projects = memberships.filter((m) => LAUNCH_ROLES.has(m.role));
  const [project, setProject] = useState<number | null>(null);
  const [name, setName] = useState("");
  const [autoName, setAutoName] = useState(""); // the name last taken from a spec, replaced by the next one
  const [kind, setKind] = useState<"training" | "evaluation">("training");
  const [device, setDevice] = useState<"cpu" | "gpu">("cpu");
  const [specText, setSpecText] = useState("");
  const [source, setSource] = useState<Record<string, unknown>>({});
  const [edited, setEdited] = useState(false);
  const [episodes, setEpisodes] = useState("");
  const [problem, setProblem] = useState<{ detail: string; errors: Record<string, string[]> } | null>(null);
  const [sending, setSending] = useState(false);
  const [tags, setTags] = useState("");
  const [baselines, setBaselines] = useState(true);
  const workers = useWorkers();

  useEffect(() => {
    if (project === null && projects.length) setProject(projects[0].project);
  }, [project, projects]);

  if (!projects.length)
    return (
      <section className="card">
        <h2>Launch a run</h2>
        <p className="muted">Only product managers and admins of a project can launch runs.</p>
      </section>
    );

  const onSpec = (text: string, from: Record<string, unknown>) => {
    setSpecText(text);
    setSource(from);
    setEdited(false);
    setProblem(null);
    const next = runNameAfterSpec(name, autoName, text);
    setName(next);
    setAutoName(next === name ? autoName : next);
  };

  const launch = async (event: React.FormEvent) => {
    event.preventDefault();
    setProblem(null);
    let spec: unknown;
    try {
      spec = JSON.parse(specText);
    } catch (e) {
      setProblem({ detail: "", errors: { spec: [`is not valid JSON: ${(e as Error).message}`] } });
      return;
    }
    // The budget travels as an override: the server applies it and records it, so a published version
    // launched with another budget keeps its workflow link.
    const overrides = episodes ? { overrides: { episodes: Number(episodes) } } : {};
    const what = specReference(source, edited, spec);
    setSending(true);
    try {
      // Checked leaves the choice to the server: on wherever the team has baselines (rules to compare with).
      const compare = kind === "training" && !baselines ? { baselines: false } : {};
      const run = await runsApi.launch({ project: project!, name: name.trim(), kind, device, ...what, ...overrides, ...compare, tags: parseTags(tags) });
      window.location.href = `/runs/${run.id}/`;
    } catch (e) {
      const err = e as ApiError;
      setProblem({ detail: err.message, errors: err.body?.errors ?? {} });
      setSending(false);
    }
  };

  return (
    <section className="card">
      <h2>Launch a run</h2>
      <form className="launch-form" onSubmit={launch} aria-label="Launch a run">
        <div className="inline-fields">
          <ProjectSelect projects={projects} value={project} onChange={setProject} />
          <label>
            Run name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
          </label>
          <label>
            Kind
            <select value={kind} onChange={(e) => setKind(e.target.value as "training" | "evaluation")} aria-label="Kind">
              <option value="training">training</option>
              <option value="evaluation">evaluation</option>
            </select>
          </label>
          <label>
            Device
            <select value={device} onChange={(e) => setDevice(e.target.value as "cpu" | "gpu")} aria-label="Device">
              <option value="cpu">CPU worker</option>
              <option value="gpu">GPU worker</option>
            </select>
          </label>
          <label>
            Tags (optional)
            <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="baseline, lr sweep" aria-label="Tags, comma-separated" />
          </label>
          <label>
            Episodes (optional)
            <input type="number" min={1} value={episodes} onChange={(e) => setEpisodes(e.target.value)} placeholder="as in spec" />
          </label>
        </div>
        {kind === "training" && (
          <label className="checkbox-field">
            <input type="checkbox" checked={baselines} onChange={(e) => setBaselines(e.target.checked)} aria-label="Compare with baselines" />
            Compare with baselines: after training, play the rules and imitation of the rules on the same held-out episodes and say
            whether MARL paid (teams whose environment ships rules)
          </label>
        )}
        <NoWorkerNotice device={device} workers={workers} onUseOther={() => setDevice(device === "gpu" ? "cpu" : "gpu")} />
        <SpecSource project={project} onSpec={onSpec} />
        <label className="spec-text">
          Spec (JSON)
          <textarea
            value={specText}
            onChange={(e) => {
              setSpecText(e.target.value);
              setEdited(true);
            }}
            rows={10}
            spellCheck={false}
            placeholder='{"spec_version": 1, "agents": [...], "environment": {...}, "training": {...}}'
          />
        </label>
        {problem && <FieldErrors detail={problem.detail} errors={problem.errors} />}
        <button type="submit" disabled={sending || !specText.trim() || !name.trim()}>
          {sending ? "Launching…" : "Launch run"}
        </button>
      </form>
    </section>
  );
}
