import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../api";
import { workflowQueries } from "../designer/queries";
import type { Membership } from "../runs/types";
import { type HomeTemplate, homeApi } from "./homeApi";

const EDITOR_ROLES = new Set(["product_manager", "admin"]);
const SUMMARY_CHARS = 200;

/** The description's first sentences, up to about SUMMARY_CHARS, ended at a sentence (never mid-line). */
export function summarise(text: string): string {
  const sentences = text.match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [text];
  let out = "";
  for (const sentence of sentences) {
    if (out && out.length + sentence.length > SUMMARY_CHARS) break;
    out += sentence;
  }
  return out.trim();
}

/** The template gallery: one click opens a new workflow from a template in the designer. */
export function TemplateStart({ memberships }: { memberships: Membership[] }) {
  const templates: HomeTemplate[] = useQuery(workflowQueries.templates()).data ?? [];
  const [error, setError] = useState("");
  const project = memberships.find((m) => EDITOR_ROLES.has(m.role))?.project ?? null;
  const start = async (template: HomeTemplate) => {
    if (project === null) return;
    setError("");
    try {
      const workflow = await homeApi.startFromTemplate(project, template);
      window.location.href = `/workflows/${workflow.id}/`;
    } catch (e) {
      setError((e as ApiError).message);
    }
  };
  if (!templates.length) return null;
  return (
    <section className="card" data-testid="home-gallery">
      <div className="card-head">
        <h2>Start from a template</h2>
        <a href="/workflows/">All workflows →</a>
      </div>
      {project === null && <p className="muted">Product managers and admins can open these in the designer; you can browse them.</p>}
      {error && <p className="error" role="alert">{error}</p>}
      <div className="gallery">
        {templates.map((t) => (
          <article key={t.slug} className="gallery-card">
            <h3>{t.name}</h3>
            <p title={t.description}>{summarise(t.description)}</p>
            <p>
              {t.agents} agents{t.environment ? ` · ${t.environment.replace(/_/g, " ")}` : ""}
            </p>
            {project !== null && (
              <button type="button" onClick={() => start(t)} aria-label={`Open ${t.name} in the designer`}>
                Open in the designer
              </button>
            )}
          </article>
        ))}
      </div>
    </section>
  );
}
