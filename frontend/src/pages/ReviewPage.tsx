import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { DecisionTable } from "../deployments/DecisionTable";
import { deploymentsApi } from "../deployments/deploymentsApi";
import { apiErrorLines } from "../deployments/format";
import { deploymentQueries, patchDecision } from "../deployments/queries";
import { type Filters, ReviewFilters, filterQuery, filterSearch, filtersFrom } from "../deployments/ReviewFilters";
import { TrajectoryView } from "../deployments/TrajectoryView";
import { ErrorList } from "../deployments/ErrorList";
import "../deployments/deployments.css";
import { useDebouncedValue } from "../queryClient";

const PAGE_SIZE = 50;
/** Typing in the search box should not send a request per key. */
const SETTLE_MS = 250;

/** Operator review: decision logs filtered and searched, a trajectory view per episode, JSONL export. */
export function ReviewPage() {
  const [params] = useState(() => new URLSearchParams(window.location.search));
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(params));
  const deployments = useQuery(deploymentQueries.list()).data?.results ?? [];
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<{ episode: number; step: number } | null>(() =>
    params.get("episode") ? { episode: Number(params.get("episode")), step: Number(params.get("step") ?? 1) } : null,
  );

  useEffect(() => {
    // The filters live in the address, so a reload or a shared link shows the same decisions.
    const keep = {
      batch: params.get("batch"),
      episode: open ? String(open.episode) : null,
      step: open ? String(open.step) : null,
    };
    const search = filterSearch(filters, keep);
    if (search !== window.location.search) {
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}${window.location.hash}`);
    }
  }, [filters, open, params]);

  const query = useMemo(() => {
    const q = filterQuery(filters);
    if (params.get("batch")) q.set("batch", params.get("batch") ?? "");
    return q;
  }, [filters, params]);
  const paged = new URLSearchParams(query);
  paged.set("page", String(page));
  paged.set("page_size", String(PAGE_SIZE));
  // The shown page stays until the next one (asked for once the filters stood still) arrives.
  const settled = useDebouncedValue(paged.toString(), SETTLE_MS);
  const { data, error } = useQuery({ ...deploymentQueries.decisions(settled), placeholderData: keepPreviousData });
  const rows = data?.results ?? [];
  const count = data?.count ?? 0;

  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
  const agents = [...new Set(deployments.flatMap((d) => d.agents))];
  return (
    <main className="page wide runs-ui deployments-ui">
      <h1>Decision review</h1>
      {open && (
        <TrajectoryView key={`${open.episode}-${open.step}`} episodeId={open.episode} initialStep={open.step} onClose={() => setOpen(null)} />
      )}
      <section className="card">
        <div className="card-head">
          <h2>
            Decisions <span className="badge" data-testid="decision-count">{count}</span>
          </h2>
          <a className="button secondary" href={deploymentsApi.exportUrl(query)} download="decisions.jsonl">
            Export JSONL
          </a>
        </div>
        <ReviewFilters
          filters={filters}
          deployments={deployments}
          agents={agents}
          onChange={(next) => {
            setFilters(next);
            setPage(1);
          }}
        />
        <ErrorList lines={apiErrorLines(error)} />
        <DecisionTable
          rows={rows}
          onOpen={(row) => setOpen({ episode: row.episode, step: row.step })}
          onReviewed={(changed) => patchDecision(queryClient, changed)}
        />
        <div className="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Newer
          </button>
          <span className="muted">
            page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
            Older
          </button>
        </div>
      </section>
    </main>
  );
}
