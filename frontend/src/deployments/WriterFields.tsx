import { WRITER_BACKENDS, type WriterBackend, type WriterRequest } from "./reply";

export interface WriterChoice {
  backend: WriterBackend;
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  apiKey: string;
}

export const DEFAULT_WRITER: WriterChoice = { backend: "template", model: "", baseUrl: "", apiKeyEnv: "", apiKey: "" };

/** The request body's ``generation`` for a choice (nothing for the default template writer). */
export function writerRequest(choice: WriterChoice): WriterRequest | undefined {
  if (choice.backend === "template") return undefined;
  const settings: WriterRequest["settings"] = { backend: choice.backend, model: choice.model.trim() };
  if (choice.backend === "openai_compatible") {
    settings.base_url = choice.baseUrl.trim();
    if (choice.apiKeyEnv.trim()) settings.api_key_env = choice.apiKeyEnv.trim();
  }
  return choice.apiKey ? { settings, api_key: choice.apiKey } : { settings };
}

/** Deploy form fields: which backend writes the replies, and what it needs. */
export function WriterFields({ value, onChange }: { value: WriterChoice; onChange: (next: WriterChoice) => void }) {
  const set = (patch: Partial<WriterChoice>) => onChange({ ...value, ...patch });
  return (
    <>
      <label>
        Replies written by{" "}
        <select aria-label="Reply writer" value={value.backend} onChange={(e) => set({ backend: e.target.value as WriterBackend })}>
          {WRITER_BACKENDS.map((b) => (
            <option key={b.value} value={b.value}>
              {b.label}
            </option>
          ))}
        </select>
      </label>
      {value.backend !== "template" && (
        <label>
          {value.backend === "local" ? "Model (a name in the server's models directory)" : "Model name"}{" "}
          <input value={value.model} onChange={(e) => set({ model: e.target.value })} required />
        </label>
      )}
      {value.backend === "openai_compatible" && (
        <>
          <label>
            Base URL <input value={value.baseUrl} onChange={(e) => set({ baseUrl: e.target.value })} placeholder="http://127.0.0.1:8001/v1" required />
          </label>
          <label>
            Key from variable <input value={value.apiKeyEnv} onChange={(e) => set({ apiKeyEnv: e.target.value })} placeholder="OPENAI_API_KEY" />
          </label>
          <label>
            or API key <input type="password" autoComplete="off" value={value.apiKey} onChange={(e) => set({ apiKey: e.target.value })} />
          </label>
        </>
      )}
    </>
  );
}
