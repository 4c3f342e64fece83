import { useState } from "react";
import { ProjectSelect } from "../components/ProjectSelect";
import type { Membership } from "../runs/types";
import { ErrorList } from "./ErrorList";
import { feedbackApi } from "./feedbackApi";
import type { Queue, QueueKind } from "./types";

interface Props {
  projects: Membership[];
  onCreated: (queue: Queue) => void;
}

const splitTags = (text: string) =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);

/** A new queue: project, name, kind, guidelines for annotators, overlap and the tags they may use. */
export function QueueCreateForm({ projects, onCreated }: Props) {
  const [project, setProject] = useState(projects[0]?.project ?? 0);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<QueueKind>("rating");
  const [guidelines, setGuidelines] = useState("");
  const [overlap, setOverlap] = useState(2);
  const [tags, setTags] = useState("");
  const [error, setError] = useState<unknown>(null);

  const submit = async () => {
    setError(null);
    try {
      const queue = await feedbackApi.createQueue({ project, name, kind, guidelines, overlap, tags: splitTags(tags) });
      setName("");
      setGuidelines("");
      setTags("");
      onCreated(queue);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <form className="card" aria-label="Create a queue" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h2>New queue</h2>
      {projects.length > 1 && (
        <ProjectSelect className="field" projects={projects} value={project} onChange={setProject} />
      )}
      <label className="field">
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label className="field">
        Kind
        <select value={kind} onChange={(e) => setKind(e.target.value as QueueKind)}>
          <option value="rating">rate episodes and steps 1–5</option>
          <option value="pairwise">compare two episodes</option>
        </select>
      </label>
      <label className="field">
        Annotators per item (overlap)
        <input type="number" min={1} max={10} value={overlap} onChange={(e) => setOverlap(Number(e.target.value))} />
      </label>
      <label className="field">
        Tags (comma-separated)
        <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="wrong intent, rude, great" />
      </label>
      <label className="field column">
        Guidelines
        <textarea value={guidelines} onChange={(e) => setGuidelines(e.target.value)} rows={3} />
      </label>
      <ErrorList error={error} />
      <button type="submit">Create queue</button>
    </form>
  );
}
