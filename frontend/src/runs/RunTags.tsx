import { useState } from "react";
import { ApiError } from "../api";
import { runExtrasApi } from "./runExtrasApi";

interface Props {
  runId: number;
  tags: string[];
  onSaved: () => void;
}

/** "a, b , c" → ["a", "b", "c"] (the server lower-cases and checks them). */
export function parseTags(text: string): string[] {
  return text.split(",").map((t) => t.trim()).filter(Boolean);
}

/** The run's tags as chips, and an inline editor (comma-separated). */
export function RunTags({ runId, tags, onSaved }: Props) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      await runExtrasApi.setTags(runId, parseTags(text));
      setEditing(false);
      setError("");
      onSaved();
    } catch (e) {
      const err = e as ApiError;
      setError(Object.values(err.body?.errors ?? {}).flat().join("; ") || err.message);
    }
  };
  if (editing)
    return (
      <form className="tag-editor" onSubmit={save} aria-label="Edit tags">
        <input value={text} onChange={(e) => setText(e.target.value)} aria-label="Tags, comma-separated" placeholder="baseline, lr sweep" autoFocus />
        <button type="submit">Save tags</button>
        <button type="button" className="link" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {error && <span className="error" role="alert">{error}</span>}
      </form>
    );
  return (
    <span className="tag-list" data-testid="run-tags">
      {tags.length ? tags.map((t) => <span key={t} className="tag-chip">{t}</span>) : <span className="muted">no tags</span>}{" "}
      <button type="button" className="link" onClick={() => { setText(tags.join(", ")); setEditing(true); }}>
        Edit tags
      </button>
    </span>
  );
}
