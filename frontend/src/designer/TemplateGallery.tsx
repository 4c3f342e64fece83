import type { TemplateSummary } from "./types";

interface Props {
  templates: TemplateSummary[];
  disabled: boolean;
  onUse: (template: TemplateSummary) => void;
}

/** The five shipped workflows (docs/design.md#environments), each a card that starts a new workflow from it. */
export function TemplateGallery({ templates, disabled, onUse }: Props) {
  return (
    <ul className="gallery" data-testid="template-gallery">
      {templates.map((t) => (
        <li key={t.slug} className="template-card">
          <h3>{t.name}</h3>
          <p className="hint">
            {t.agents} agents · {t.environment ? `trains on ${t.environment}` : "design-only"}
          </p>
          <p className="description">{t.description}</p>
          <button
            onClick={() => onUse(t)}
            disabled={disabled}
            title={disabled ? "Your role cannot create workflows in this project" : `Create a workflow from ${t.name}`}
          >
            Use {t.name}
          </button>
        </li>
      ))}
    </ul>
  );
}
