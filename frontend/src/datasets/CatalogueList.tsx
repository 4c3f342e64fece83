import type { Dataset } from "./types";

/** The intents a dataset's rows may carry, each with what it means; nothing when it declares none. */
export function CatalogueList({ catalogue }: { catalogue: Dataset["catalogue"] }) {
  const intents = catalogue?.intents ?? [];
  if (intents.length === 0) return null;
  return (
    <details className="card" data-testid="catalogue">
      <summary>{intents.length} intents in the catalogue</summary>
      <dl className="dataset-catalogue">
        {intents.map((intent) => (
          <div key={intent.name}>
            <dt>{intent.name}</dt>
            <dd>
              {intent.description || <span className="muted">no description</span>}
              {intent.keywords && intent.keywords.length > 0 && <span className="muted small"> · {intent.keywords.join(", ")}</span>}
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
