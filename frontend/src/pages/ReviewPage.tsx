import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { deploymentsApi } from "../deployments/deploymentsApi";
import { episodeQuery } from "../deployments/episodeRows";
import { ConversationLog } from "../deployments/ConversationLog";
import { EpisodeTable } from "../deployments/EpisodeTable";
import { apiErrorLines } from "../deployments/format";
import { deploymentQueries, patchDecision, patchEpisodeRow } from "../deployments/queries";
import { type Filters, ReviewFilters, filterQuery, filterSearch, filtersFrom } from "../deployments/ReviewFilters";
import { EpisodeSteps } from "../deployments/EpisodeSteps";
import { TrajectoryView } from "../deployments/TrajectoryView";
import type { DecisionRow } from "../deployments/types";
import { ErrorList } from "../deployments/ErrorList";
import "../deployments/deployments.css";
import { useDebouncedValue } from "../queryClient";

const PAGE_SIZE = 50;
/** Typing in the search box should not send a request per key. */
const SETTLE_MS = 250;

/** Operator review by ticket: one row per episode (ticket, reply, who decided, confidence, review), filtered
 * and searched; a row opens its steps, a step the trajectory with its attention heat map; JSONL export. */
export function ReviewPage() {
  const [params] = useState(() => new URLSearchParams(window.location.search));
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(params));
  const deployments = useQuery(deploymentQueries.list()).data?.results ?? [];
  const [page, setPage] = useState(1);
  // A link to ?episode=<id> (the ticket console's "review") opens that ticket's steps.
  const [expanded, setExpanded] = useState<number | null>(() => (params.get("episode") ? Number(params.get("episode")) : null));
  const [open, setOpen] = useState<{ episode: number; step: number } | null>(() =>
    params.get("episode") && params.get("step") ? { episode: Number(params.get("episode")), step: Number(params.get("step")) } : null,
  );

  useEffect(() => {
    // The filters live in the address, so a reload or a shared link shows the same tickets.
    const keep = {
      batch: params.get("batch"),
      episode: open ? String(open.episode) : expanded ? String(expanded) : null,
      step: open ? String(open.step) : null,
    };
    const search = filterSearch(filters, keep);
    if (search !== window.location.search) {
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}${window.location.hash}`);
    }
  }, [filters, open, expanded, params]);

  const exportQuery = useMemo(() => {
    const q = filterQuery(filters);
    if (params.get("batch")) q.set("batch", params.get("batch") ?? "");
    return q;
  }, [filters, params]);
  const paged = episodeQuery(filters);
  if (params.get("batch")) paged.set("batch", params.get("batch") ?? "");
  paged.set("page", String(page));
  paged.set("page_size", String(PAGE_SIZE));
  // The shown page stays until the next one (asked for once the filters stood still) arrives.
  const settled = useDebouncedValue(paged.toString(), SETTLE_MS);
  const { data, error } = useQuery({ ...deploymentQueries.episodeRows(settled), placeholderData: keepPreviousData });
  const rows = data?.results ?? [];
  const count = data?.count ?? 0;
  const expandedElsewhere = expanded !== null && data !== undefined && !rows.some((r) => r.id === expanded);

  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
  const openStep = (row: DecisionRow) => setOpen({ episode: row.episode, step: row.step });
  const stepReviewed = (changed: DecisionRow) => {
    // The step's row in its episode's detail, and the ticket's review (made of its steps') in the list.
    queryClient.setQueryData(deploymentQueries.episode(changed.episode).queryKey, (old) =>
      old && { ...old, steps: old.steps.map((s) => (s.id === changed.id ? changed : s)) },
    );
    patchDecision(queryClient, changed);
    void queryClient.invalidateQueries({ queryKey: ["episode-rows"] });
  };
  const agents = [...new Set(deployments.flatMap((d) => d.agents))];
  return (
    <main className="page wide runs-ui deployments-ui">
      <h1>Ticket review</h1>
      {open && (
        <TrajectoryView key={`${open.episode}-${open.step}`} episodeId={open.episode} initialStep={open.step} onClose={() => setOpen(null)} />
      )}
      {expandedElsewhere && (
        <section className="card" aria-label={`Episode ${expanded}`}>
          <div className="card-head">
            <h2>Episode {expanded}</h2>
            <button type="button" className="secondary" onClick={() => setExpanded(null)}>
              Close
            </button>
          </div>
          <EpisodeSteps episodeId={expanded} onOpen={openStep} onReviewed={stepReviewed} />
        </section>
      )}
      <section className="card">
        <div className="card-head">
          <h2>
            Tickets <span className="badge" data-testid="episode-count">{count}</span>
          </h2>
          <a className="button secondary" href={deploymentsApi.exportUrl(exportQuery)} download="decisions.jsonl">
            Export decisions (JSONL)
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
        <EpisodeTable
          rows={rows}
          expanded={expanded}
          onExpand={setExpanded}
          onReviewed={(changed) => patchEpisodeRow(queryClient, changed)}
          onOpenStep={openStep}
          onStepReviewed={stepReviewed}
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
      <ConversationLog deployment={filters.deployment} />
    </main>
  );
}
