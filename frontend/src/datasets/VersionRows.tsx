import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ROWS_PAGE_SIZE } from "./logic";
import { datasetQueries } from "./queries";
import { RowFiltersBar } from "./RowFiltersBar";
import { RowTable } from "./RowTable";
import { NO_FILTERS, type RowFilters } from "./types";

/** A version's rows, filtered and searched, a page at a time. */
export function VersionRows({ version, intents }: { version: number; intents: string[] }) {
  const [filters, setFilters] = useState<RowFilters>(NO_FILTERS);
  const rows = useQuery({ ...datasetQueries.rows(version, filters), placeholderData: keepPreviousData });
  const count = rows.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / ROWS_PAGE_SIZE));
  const go = (page: number) => setFilters({ ...filters, page });
  return (
    <section className="card" aria-label="Rows">
      <div className="card-head">
        <h2>Rows</h2>
        <span className="muted small" data-testid="row-count">
          {count} rows
        </span>
      </div>
      <RowFiltersBar filters={filters} intents={intents} onChange={setFilters} />
      {rows.error && <p className="error">{rows.error.message}</p>}
      {rows.data && <RowTable rows={rows.data.results} />}
      {pages > 1 && (
        <div className="pager">
          <button type="button" className="secondary" disabled={filters.page <= 1} onClick={() => go(filters.page - 1)}>
            Previous
          </button>
          <span>
            page {filters.page} of {pages}
          </span>
          <button type="button" className="secondary" disabled={filters.page >= pages} onClick={() => go(filters.page + 1)}>
            Next
          </button>
        </div>
      )}
    </section>
  );
}
