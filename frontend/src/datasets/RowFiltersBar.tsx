import { PROVENANCES, type RowFilters, SPLITS } from "./types";

interface Props {
  filters: RowFilters;
  intents: string[];
  onChange: (filters: RowFilters) => void;
}

/** Filters of a version's rows: split, intent, provenance, labelled or not, and a text search. Any change
 * goes back to the first page. */
export function RowFiltersBar({ filters, intents, onChange }: Props) {
  const set = (change: Partial<RowFilters>) => onChange({ ...filters, ...change, page: 1 });
  return (
    <div className="dataset-filters" role="search">
      <input
        type="search"
        placeholder="Search the text"
        aria-label="Search rows"
        value={filters.search}
        onChange={(e) => set({ search: e.target.value })}
      />
      <select aria-label="Split" value={filters.split} onChange={(e) => set({ split: e.target.value as RowFilters["split"] })}>
        <option value="">every split</option>
        {SPLITS.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <select aria-label="Intent" value={filters.intent} onChange={(e) => set({ intent: e.target.value })}>
        <option value="">every intent</option>
        {intents.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
      <select
        aria-label="Labelled"
        value={filters.unlabelled}
        onChange={(e) => set({ unlabelled: e.target.value as RowFilters["unlabelled"] })}
      >
        <option value="">labelled or not</option>
        <option value="false">labelled</option>
        <option value="true">unlabelled</option>
      </select>
      <select
        aria-label="Provenance"
        value={filters.provenance}
        onChange={(e) => set({ provenance: e.target.value as RowFilters["provenance"] })}
      >
        <option value="">any origin</option>
        {PROVENANCES.map((p) => (
          <option key={p}>{p}</option>
        ))}
      </select>
    </div>
  );
}
