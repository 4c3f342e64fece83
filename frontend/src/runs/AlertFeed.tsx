import { useState } from "react";
import { formatTime } from "./format";
import type { FeedItem } from "./types";

/** Circuit-breaker and golden-range alerts, errors and (on request) log lines, newest first. */
export function AlertFeed({ items }: { items: FeedItem[] }) {
  const [showLogs, setShowLogs] = useState(false);
  const shown = items.filter((i) => showLogs || i.kind !== "log").slice(-200).reverse();
  const logCount = items.filter((i) => i.kind === "log").length;
  return (
    <section className="card">
      <div className="card-head">
        <h2>Alerts and circuit breaker</h2>
        <label className="muted">
          <input type="checkbox" checked={showLogs} onChange={(e) => setShowLogs(e.target.checked)} /> show log lines ({logCount})
        </label>
      </div>
      {shown.length === 0 ? (
        <p className="muted">No alerts. Golden-range and circuit-breaker alerts appear here as they happen.</p>
      ) : (
        <ul className="alert-feed" data-testid="alert-feed">
          {shown.map((item) => (
            <li key={item.seq} className={`feed-item level-${item.level}`}>
              <span className="feed-title">{item.title}</span>
              {item.detail && <span className="feed-detail">{item.detail}</span>}
              <time className="muted">{formatTime(item.time)}</time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
