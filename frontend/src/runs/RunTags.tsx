import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { fieldErrorText } from "../api";
import { roleIn } from "../deployments/roles";
import { runQueries } from "./queries";
import { runExtrasApi } from "./runExtrasApi";
import type { Me } from "./types";

interface Props {
  runId: number;
  tags: string[];
  /** Whether the signed-in user may change them (mayTagRuns); others see the chips only. */
  canEdit: boolean;
}

/** Runs are their product managers' and admins': only they may tag one (operators watch runs;
 * mirrors the runs API's tags/ check). */
export const mayTagRuns = (me: Me | null, project: number) =>
  Boolean(me?.is_staff) || ["product_manager", "admin"].includes(roleIn(me, project) ?? "");

/** "a, b , c" → ["a", "b", "c"] (the server lower-cases and checks them). */
export function parseTags(text: string): string[] {
  return text.split(",").map((t) => t.trim()).filter(Boolean);
}

/** The run's tags as chips, and an inline editor (comma-separated); saving re-reads the run. */
export function RunTags({ runId, tags, canEdit }: Props) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  const saving = useMutation({
    mutationFn: (next: string[]) => runExtrasApi.setTags(runId, next),
    onSuccess: () => {
      setEditing(false);
      void queryClient.invalidateQueries({ queryKey: runQueries.detail(runId).queryKey, exact: true });
    },
  });
  const error = saving.isError ? fieldErrorText(saving.error) : "";
  const save = (event: React.FormEvent) => {
    event.preventDefault();
    saving.mutate(parseTags(text));
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
      {canEdit && (
        <button type="button" className="link" onClick={() => { setText(tags.join(", ")); setEditing(true); }}>
          Edit tags
        </button>
      )}
    </span>
  );
}
