import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "../api";
import { workflowsApi } from "./designerApi";
import { useDesigner } from "./store";

export type SaveStatus = "saved" | "unsaved" | "saving" | "error";

const SAVE_DELAY_MS = 800;
const VALIDATE_DELAY_MS = 350;

/** Autosaves the draft after a pause in editing, and asks the server's validator about every change.
 *
 * `flush()` saves at once (publishing calls it so the published version is what the user sees).
 */
export function useDraftSync(workflowId: number, loaded: boolean) {
  const revision = useDesigner((s) => s.revision);
  const spec = useDesigner((s) => s.spec);
  const readOnly = useDesigner((s) => s.readOnly);
  const setReport = useDesigner((s) => s.setReport);
  const [status, setStatus] = useState<SaveStatus>("saved");
  const [saveError, setSaveError] = useState("");
  const [validating, setValidating] = useState(false);
  const savedRevision = useRef(0);
  const timer = useRef<number | undefined>(undefined);
  const inFlight = useRef<Promise<void> | null>(null);

  const save = useCallback(async () => {
    window.clearTimeout(timer.current);
    if (inFlight.current) await inFlight.current;
    const { revision: target, spec: current, layout } = useDesigner.getState();
    if (target === savedRevision.current) return;
    setStatus("saving");
    const request = workflowsApi.saveDraft(workflowId, current, layout).then(
      () => {
        savedRevision.current = target;
        setSaveError("");
        setStatus(useDesigner.getState().revision === target ? "saved" : "unsaved");
      },
      (e: ApiError) => {
        setStatus("error");
        const details = e.body?.errors ? Object.entries(e.body.errors).map(([k, v]) => `${k}: ${v.join(" ")}`) : [];
        setSaveError([e.message, ...details.slice(0, 2)].join(" — "));
        throw e;
      },
    );
    inFlight.current = request.finally(() => (inFlight.current = null)).catch(() => undefined);
    await request;
  }, [workflowId]);

  // Loading a draft resets the revision baseline: nothing to save yet.
  useEffect(() => {
    if (loaded) savedRevision.current = useDesigner.getState().revision;
  }, [loaded]);

  useEffect(() => {
    if (!loaded || readOnly || revision === savedRevision.current) return;
    setStatus("unsaved");
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => save().catch(() => undefined), SAVE_DELAY_MS);
    return () => window.clearTimeout(timer.current);
  }, [revision, loaded, readOnly, save]);

  useEffect(() => {
    if (!loaded) return;
    const controller = new AbortController();
    const handle = window.setTimeout(() => {
      setValidating(true);
      workflowsApi
        .validate(workflowId, spec, controller.signal)
        .then(setReport, (e: Error) => {
          if (e.name !== "AbortError") setReport({ valid: false, errors: [{ path: "$", message: e.message }], warnings: [], advice: null });
        })
        .finally(() => setValidating(false));
    }, VALIDATE_DELAY_MS);
    return () => {
      window.clearTimeout(handle);
      controller.abort();
    };
  }, [spec, loaded, workflowId, setReport]);

  // Warn before leaving with unsaved edits.
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (useDesigner.getState().revision !== savedRevision.current && !useDesigner.getState().readOnly) event.preventDefault();
    };
    window.addEventListener("beforeunload", beforeUnload);
    return () => window.removeEventListener("beforeunload", beforeUnload);
  }, []);

  return { status, saveError, validating, flush: save };
}
