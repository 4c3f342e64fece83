import { useEffect, useMemo, useState } from "react";
import { ApiError } from "../api";
import { DecisionTable } from "../deployments/DecisionTable";
import { deploymentsApi } from "../deployments/deploymentsApi";
import { errorLines } from "../deployments/format";
import { type Filters, ReviewFilters, filterQuery, filterSearch, filtersFrom } from "../deployments/ReviewFilters";
import { TrajectoryView } from "../deployments/TrajectoryView";
import type { DecisionRow, DeploymentSummary } from "../deployments/types";
import { ErrorList } from "../deployments/ErrorList";
import "../deployments/deployments.css";

const PAGE_SIZE = 50;

/** Operator review: decision logs filtered and searched, a trajectory view per episode, JSONL export. */
export function ReviewPage() {
  const [params] = useState(() => new URLSearchParams(window.location.search));
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(params));
  const [deployments, setDeployments] = useState<DeploymentSummary[]>([]);
  const [rows, setRows] = useState<DecisionRow[]>([]);
  const [count, setCount] = useState(0);
  const [page, setPage] = useState(1);
  const [errors, setErrors] = useState<string[]>([]);
  const [open, setOpen] = useState<{ episode: number; step: number } | null>(() =>
    params.get("episode") ? { episode: Number(params.get("episode")), step: Number(params.get("step") ?? 1) } : null,
  );

  useEffect(() => {
    deploymentsApi.list().then((body) => setDeployments(body.results), () => undefined);
  }, []);

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
  useEffect(() => {
    // Typing in the search box should not send a request per key.
    const timer = window.setTimeout(() => {
      const paged = new URLSearchParams(query);
      paged.set("page", String(page));
      paged.set("page_size", String(PAGE_SIZE));
      deploymentsApi.decisions(paged).then(
        (body) => {
          setRows(body.results);
          setCount(body.count);
          setErrors([]);
        },
        (e: ApiError) => setErrors(errorLines(e.body?.errors, e.message)),
      );
    }, 250);
    return () => window.clearTimeout(timer);
  }, [query, page]);

  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
  const agents = [...new Set(deployments.flatMap((d) => d.agents))];
  return (
    <main className="page wide runs-ui deployments-ui">
      <h1>Decision review</h1>
      {open && <TrajectoryView episodeId={open.episode} initialStep={open.step} onClose={() => setOpen(null)} />}
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
        <ErrorList lines={errors} />
        <DecisionTable
          rows={rows}
          onOpen={(row) => setOpen({ episode: row.episode, step: row.step })}
          onReviewed={(changed) => setRows((old) => old.map((r) => (r.id === changed.id ? changed : r)))}
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
