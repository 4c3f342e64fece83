import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, fieldErrorText } from "../api";
import { datasetsApi } from "../datasets/datasetsApi";
import { datasetQueries } from "../datasets/queries";
import type { Dataset, LabelDistribution } from "../datasets/types";
import type { DeclaredIntent } from "./IntentCatalogue";
import type { Json } from "./types";

/** What `POST /api/dataset-versions/<id>/training-files/` answers: the name the spec gives, rows per split. */
interface TrainingFiles {
  tickets: string;
  counts: Record<string, number>;
}

export interface TrainableVersion {
  version: number;
  label: string;
  /** The dataset's own intent catalogue ([] when it declares none): the intents its rows may carry. */
  intents: DeclaredIntent[];
}

/** A dataset's catalogue as a spec declares it (`environment.params.intents`): an empty description or
 * keyword list is left out, as the spec's validator asks. */
export function declaredIntents(catalogue: Dataset["catalogue"]): DeclaredIntent[] {
  return (catalogue?.intents ?? []).map((i) => ({
    name: i.name,
    ...(i.description?.trim() ? { description: i.description.trim() } : {}),
    ...(i.keywords?.length ? { keywords: i.keywords } : {}),
  }));
}

/** The intents a dataset that declares no catalogue must be trained under: those its rows carry, by name
 * (the designer then asks for each new one's description); none when the shipped catalogue holds them all. */
export function labelledIntents(labels: LabelDistribution, shipped: string[]): DeclaredIntent[] {
  const names = labels.intents.filter((i) => i.count > 0).map((i) => i.name);
  return names.every((name) => shipped.includes(name)) ? [] : names.map((name) => ({ name }));
}

/** The environment's params training on `tickets`. The spec's catalogue (its own, else the environment's
 * `shipped` one) stays when it already holds every intent of the dataset; otherwise the dataset's intents
 * become the catalogue (its rows may hold no other intent, and a team trained under a catalogue that lacks
 * one fails on its first such row), each keeping the spec's own words where it declared that intent already.
 * `adopted` says whether the catalogue changed. */
export function paramsForDataset(
  params: Record<string, Json>,
  tickets: string,
  intents: DeclaredIntent[],
  shipped: string[] = [],
): { params: Record<string, Json>; adopted: boolean } {
  const next: Record<string, Json> = { ...params, tickets };
  const own = (Array.isArray(params.intents) ? params.intents : []).filter(
    (i): i is Record<string, Json> => typeof i === "object" && i !== null && !Array.isArray(i) && typeof i.name === "string",
  );
  const current = own.length ? own.map((i) => i.name as string) : shipped;
  if (intents.every((i) => current.includes(i.name))) return { params: next, adopted: false };
  next.intents = intents.map((i) => own.find((o) => o.name === i.name) ?? i) as unknown as Json;
  return { params: next, adopted: true };
}

/** The project's datasets a team can train on, each by its newest version, named as a user knows them. */
export function trainableVersions(datasets: Dataset[], project: number): TrainableVersion[] {
  return datasets
    .filter((d) => d.project === project && d.latest_version)
    .map((d) => ({
      version: d.latest_version!.id,
      label: `${d.name} · v${d.latest_version!.number} (${d.latest_version!.row_count} rows)`,
      intents: declaredIntents(d.catalogue),
    }));
}

/** The labelled rows per split in words: "train 40 · dev 6 · test 6". */
export function countsText(counts: Record<string, number>): string {
  return ["train", "dev", "test"].map((split) => `${split} ${counts[split] ?? 0}`).join(" · ");
}

interface Props {
  project: number;
  label: string;
  hint?: string;
  value: string;
  placeholder: string;
  onChange: (value: string | undefined) => void;
  /** A dataset chosen: its ticket name and its own intents ([] when it declares none); answers whether the
   * spec's catalogue changed. Without it, only the ticket name is set. */
  onDataset?: (tickets: string, intents: DeclaredIntent[]) => boolean;
  /** The environment's own intents by name: a dataset without a catalogue whose labels are all among them
   * leaves the spec's catalogue as it is. */
  shipped?: string[];
}

/** The tickets a routing team trains on: a split name or file typed as before, or one of the project's
 * datasets chosen by name, whose labelled rows are then written where the environment reads them. */
export function TicketsField({ project, label, hint, value, placeholder, onChange, onDataset, shipped = [] }: Props) {
  const { data: versions = [] } = useQuery({ ...datasetQueries.list(), select: (body) => trainableVersions(body.results, project) });
  const [chosen, setChosen] = useState("");
  const [used, setUsed] = useState("");
  const write = useMutation({
    mutationFn: async (version: number) => {
      const files = await api<TrainingFiles>(`dataset-versions/${version}/training-files/`, { method: "POST" });
      const declared = versions.find((v) => v.version === version)?.intents ?? [];
      const intents = declared.length || !onDataset ? declared : labelledIntents(await datasetsApi.labels(version), shipped);
      return { ...files, intents };
    },
    onSuccess: (body) => {
      const intents = body.intents;
      const adopted = onDataset ? onDataset(body.tickets, intents) : (onChange(body.tickets), false);
      const catalogue = adopted
        ? ` Its ${intents.length} intents are now the team's catalogue: give each to a specialist (select the agent, then tick its intents); a prompt you have not edited is then written from the intents it owns.`
        : "";
      setUsed(`Training on its labelled rows: ${countsText(body.counts)}.${catalogue}`);
    },
  });
  return (
    <div className="tickets-field">
      <label className="field" title={hint}>
        <span>{label}</span>
        <input value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value || undefined)} />
      </label>
      {versions.length > 0 && (
        <div className="row">
          <label className="field">
            <span>Train on a dataset</span>
            <select aria-label="Train on a dataset" value={chosen} onChange={(e) => setChosen(e.target.value)}>
              <option value="">choose a dataset</option>
              {versions.map((v) => (
                <option key={v.version} value={v.version}>
                  {v.label}
                </option>
              ))}
            </select>
          </label>
          <button type="button" disabled={!chosen || write.isPending} onClick={() => write.mutate(Number(chosen))}>
            Use its labelled rows
          </button>
        </div>
      )}
      {used && <p className="ok" data-testid="tickets-used">{used}</p>}
      {write.error && <p className="error" role="alert">{fieldErrorText(write.error)}</p>}
    </div>
  );
}
