import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { RunRow } from "./RunRow";
import { RUN_LIST_POLL_MS, runQueries } from "./queries";
import { groupByTag } from "./tagGroups";
import { RUN_STATES, type Membership } from "./types";

interface Props {
  projects: Membership[];
}

/** The runs of your projects, filterable by state and project; pick two or more to compare them. */
export function RunList({ projects }: Props) {
  const [page, setPage] = useState(1);
  // Filters start from the page's URL, so /runs/?workflow=3&state=running can be linked to.
  const [initial] = useState(() => new URLSearchParams(window.location.search));
  const [state, setState] = useState(initial.get("state") ?? "");
  const [project, setProject] = useState(initial.get("project") ?? "");
  const [workflow, setWorkflow] = useState(initial.get("workflow") ?? "");
  const [tag, setTag] = useState(initial.get("tag") ?? "");
  const [grouped, setGrouped] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);

  const query = new URLSearchParams({ page: String(page), ordering: "-created_at" });
  if (state) query.set("state", state);
  if (project) query.set("project", project);
  if (workflow) query.set("workflow", workflow);
  if (tag) query.set("tag", tag);
  // Another filter keeps showing the rows it replaces until its own arrive.
  const list = useQuery({ ...runQueries.list(query), refetchInterval: RUN_LIST_POLL_MS, placeholderData: keepPreviousData });
  const runs = list.data?.results ?? [];
  const count = list.data?.count ?? 0;
  const knownTags = useQuery({ ...runQueries.tags(), refetchInterval: RUN_LIST_POLL_MS }).data?.tags ?? [];

  const toggle = (id: number) => setSelected((old) => (old.includes(id) ? old.filter((x) => x !== id) : [...old, id]));
  const projectName = (id: number) => projects.find((m) => m.project === id)?.project_name ?? `project ${id}`;
  const pages = Math.max(1, Math.ceil(count / 50));

  return (
    <section className="card">
      <div className="card-head">
        <h2>Runs</h2>
        <div className="filters">
          <label>
            State{" "}
            <select value={state} onChange={(e) => { setState(e.target.value); setPage(1); }} aria-label="Filter by state">
              <option value="">all</option>
              {RUN_STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          {projects.length > 1 && (
            <label>
              Project{" "}
              <select value={project} onChange={(e) => { setProject(e.target.value); setPage(1); }} aria-label="Filter by project">
                <option value="">all</option>
                {projects.map((m) => (
                  <option key={m.project} value={m.project}>
                    {m.project_name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label>
            Tag{" "}
            <select value={tag} onChange={(e) => { setTag(e.target.value); setPage(1); }} aria-label="Filter by tag">
              <option value="">all</option>
              {knownTags.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name} ({t.runs})
                </option>
              ))}
              {tag && !knownTags.some((t) => t.name === tag) && <option value={tag}>{tag}</option>}
            </select>
          </label>
          <label className="muted">
            <input type="checkbox" checked={grouped} onChange={(e) => setGrouped(e.target.checked)} /> group by tag
          </label>
          {workflow && (
            <span className="run-chip run-chip-on">
              workflow {workflow}
              <button className="link" onClick={() => setWorkflow("")} aria-label="Show runs of every workflow">
                ×
              </button>
            </span>
          )}
          <button
            disabled={selected.length < 2 || selected.length > 8}
            onClick={() => (window.location.href = `/runs/compare/?ids=${selected.join(",")}`)}
            title="Select 2 to 8 runs"
          >
            Compare selected ({selected.length})
          </button>
        </div>
      </div>
      {list.error && <p className="error" role="alert">{list.error.message}</p>}
      {runs.length === 0 ? (
        <p className="muted">{state || tag ? `No ${state} runs${tag ? ` tagged ${tag}` : ""}.` : "No runs yet: launch one below."}</p>
      ) : (
        <table className="run-table" data-testid="run-list">
          <thead>
            <tr>
              <th aria-label="Select" />
              <th>Run</th>
              <th>State</th>
              <th>Project</th>
              <th>Team</th>
              <th>Kind</th>
              <th>Tags</th>
              <th>Created</th>
              <th>Duration</th>
              <th>By</th>
            </tr>
          </thead>
          <tbody>
            {(grouped ? groupByTag(runs) : [{ tag: null, runs }]).map((group) => [
              group.tag !== null && (
                <tr key={`group-${group.tag}`} className="run-group-head">
                  <td colSpan={10}>{group.tag || "untagged"} ({group.runs.length})</td>
                </tr>
              ),
              ...group.runs.map((run) => (
                <RunRow
                  key={`${group.tag ?? ""}-${run.id}`}
                  run={run}
                  projectName={projectName(run.project)}
                  selected={selected.includes(run.id)}
                  onToggle={() => toggle(run.id)}
                />
              )),
            ])}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <div className="pager">
          <button disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            page {page} of {pages}
          </span>
          <button disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </div>
      )}
    </section>
  );
}
