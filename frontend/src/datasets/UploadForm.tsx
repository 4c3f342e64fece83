import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { ProjectSelect } from "../components/ProjectSelect";
import type { Membership } from "../runs/types";
import { datasetsApi } from "./datasetsApi";
import { parseCatalogue, refusedUpload } from "./logic";
import type { UploadMode, UploadResult } from "./types";
import { UploadReport } from "./UploadReport";

interface Props {
  /** Upload into this dataset; without one the form makes a new dataset in one of `projects`. */
  datasetId?: number;
  projects?: Membership[];
  /** Called with what a successful upload stored. */
  onUploaded?: (result: UploadResult) => void;
}

interface Upload {
  file: File;
  mode: UploadMode;
}

/** Upload a JSONL or CSV file: as a new dataset (project, name) or as the next version of one. Shows what
 * was stored and, line by line, every row that was refused. */
export function UploadForm({ datasetId, projects = [], onUploaded }: Props) {
  const queryClient = useQueryClient();
  const [project, setProject] = useState(projects[0]?.project ?? 0);
  const [name, setName] = useState("");
  const [catalogue, setCatalogue] = useState("");
  // A new version keeps the rows it grows from unless told otherwise: replacing by default silently dropped
  // every corrected or annotated row of a deployment's dataset from its next generation's training.
  const [mode, setMode] = useState<UploadMode>(datasetId ? "append" : "replace");
  const [file, setFile] = useState<File | null>(null);
  const form = useRef<HTMLFormElement>(null); // the file input is the browser's: cleared by resetting the form
  // A new dataset whose first file was refused stays (empty): a retry under the same name uploads into it
  // instead of failing on the name it took.
  const [made, setMade] = useState<{ id: number; project: number; name: string } | null>(null);
  const newDataset = async () => {
    const body = { project, name, catalogue: parseCatalogue(catalogue) };
    if (made && made.project === project && made.name === name) return (await datasetsApi.update(made.id, { catalogue: body.catalogue })).id;
    const created = await datasetsApi.create(body);
    setMade({ id: created.id, project, name });
    return created.id;
  };
  const uploading = useMutation({
    mutationFn: async ({ file, mode }: Upload) => datasetsApi.upload(datasetId ?? (await newDataset()), file, mode),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["datasets"] }),
    onSuccess: (result) => {
      setName("");
      setCatalogue("");
      setMade(null);
      setFile(null);
      form.current?.reset();
      onUploaded?.(result);
    },
  });
  const refused = refusedUpload(uploading.error);
  const result = uploading.data;

  return (
    <form
      ref={form}
      className="card dataset-upload"
      aria-label={datasetId ? "Upload a new version" : "Upload a dataset"}
      onSubmit={(e) => {
        e.preventDefault();
        if (file) uploading.mutate({ file, mode });
      }}
    >
      <h2>{datasetId ? "Upload a new version" : "New dataset"}</h2>
      {!datasetId && projects.length > 1 && (
        <ProjectSelect className="field column" projects={projects} value={project} onChange={setProject} />
      )}
      {!datasetId && (
        <label className="field column">
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </label>
      )}
      {!datasetId && (
        <label className="field column">
          Intents (optional)
          <span className="hint">One a line, “name: what it means”; rows may then carry only these.</span>
          <textarea
            value={catalogue}
            onChange={(e) => setCatalogue(e.target.value)}
            rows={3}
            placeholder={"warranty_claim: an item broke within its warranty\ncancel_subscription: stop a recurring order"}
          />
        </label>
      )}
      {datasetId && (
        <label className="field column">
          Rows
          <select value={mode} onChange={(e) => setMode(e.target.value as UploadMode)} aria-label="Rows of the new version">
            <option value="append">the latest version's rows, then the file's</option>
            <option value="replace">the file's rows only (the latest version's rows are left out)</option>
          </select>
        </label>
      )}
      <p className="hint">
        JSONL, one row a line: {'{"text": "where is my parcel?", "intents": ["order_tracking"]}'}, or CSV with a
        <code> text</code> column (and <code>intents</code> as a JSON list or names separated by <code>;</code>, <code>owner</code>,
        <code> reference_reply</code>; other columns are kept as metadata).
      </p>
      <label className="field column">
        File
        <input
          type="file"
          accept=".jsonl,.json,.ndjson,.csv,.tsv,.txt"
          aria-label="Dataset file (JSONL or CSV)"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          required
        />
      </label>
      <button type="submit" disabled={!file || uploading.isPending}>
        {uploading.isPending ? "Uploading…" : "Upload"}
      </button>
      {refused.other.length > 0 && (
        <div className="field-errors" role="alert">
          {refused.other.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
      {uploading.isError && made && made.name === name && (
        <p className="hint" data-testid="made-empty">
          The dataset “{made.name}” was made but holds no version yet: upload a corrected file under the same name to fill it.
        </p>
      )}
      {refused.rows.length > 0 && (
        <UploadReport accepted={null} refused={refused.refused} errors={refused.rows} errorsTotal={refused.total} />
      )}
      {result && (
        <UploadReport
          accepted={result.accepted}
          refused={result.refused}
          errors={result.errors}
          errorsTotal={result.errors_total}
          duplicates={result.duplicates}
          version={result.version}
        />
      )}
      {result && !datasetId && (
        <p>
          <a href={`/datasets/${result.dataset}/`}>Open the dataset</a>
        </p>
      )}
    </form>
  );
}
