import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ProjectSelect } from "../components/ProjectSelect";
import type { Membership } from "../runs/types";
import { ErrorList } from "./ErrorList";
import { feedbackApi } from "./feedbackApi";
import { feedbackQueries } from "./queries";
import type { NewQueue, QueueKind } from "./types";

interface Props {
  projects: Membership[];
}

const splitTags = (text: string) =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);

/** A new queue: project, name, kind, guidelines for annotators, overlap and the tags they may use; the
 * queues are re-read once it is created. */
export function QueueCreateForm({ projects }: Props) {
  const queryClient = useQueryClient();
  const [project, setProject] = useState(projects[0]?.project ?? 0);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<QueueKind>("rating");
  const [guidelines, setGuidelines] = useState("");
  const [overlap, setOverlap] = useState(2);
  const [tags, setTags] = useState("");
  const creating = useMutation({
    mutationFn: (queue: NewQueue) => feedbackApi.createQueue(queue),
    onSuccess: () => {
      setName("");
      setGuidelines("");
      setTags("");
      void queryClient.invalidateQueries({ queryKey: feedbackQueries.queues().queryKey, exact: true });
    },
  });
  const submit = () => creating.mutate({ project, name, kind, guidelines, overlap, tags: splitTags(tags) });

  return (
    <form className="card" aria-label="Create a queue" onSubmit={(e) => { e.preventDefault(); submit(); }}>
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
          <option value="intents">choose the intents of dataset rows</option>
        </select>
      </label>
      <label className="field">
        Annotators per item (overlap)
        <input type="number" min={1} max={10} value={overlap} onChange={(e) => setOverlap(Number(e.target.value))} />
      </label>
      <p className="hint" data-testid="overlap-hint">
        Each item goes to this many different annotators of the project (all of them when it has fewer); agreement
        is measured on items two or more answered.
      </p>
      <label className="field">
        Tags (comma-separated)
        <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="wrong intent, rude, great" />
      </label>
      <label className="field column">
        Guidelines
        <textarea value={guidelines} onChange={(e) => setGuidelines(e.target.value)} rows={3} />
      </label>
      <ErrorList error={creating.error} />
      <button type="submit">Create queue</button>
    </form>
  );
}
