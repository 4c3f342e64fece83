import { describe, expect, it } from "vitest";
import { batchWritingFacts, replyFacts, textBlocks } from "./reply";
import { DEFAULT_WRITER, writerRequest } from "./WriterFields";

describe("replyFacts", () => {
  it("sums tokens and shows cost only when there is one", () => {
    const usage = { prompt_tokens: 900, completion_tokens: 300 };
    expect(replyFacts({ backend: "local", usage, latency_ms: 41.6, cost: 0 })).toBe("local · 1.2k tokens · 42 ms");
    expect(replyFacts({ backend: "openai_compatible", usage: { prompt_tokens: 10, completion_tokens: 5 }, latency_ms: 3, cost: 0.00215 })).toBe(
      "openai_compatible · 15 tokens · 3 ms · 0.0022 cost",
    );
  });
});

describe("writerRequest", () => {
  it("sends nothing for the default template writer", () => {
    expect(writerRequest(DEFAULT_WRITER)).toBeUndefined();
  });
  it("sends the server's settings, and the key only when typed", () => {
    const choice = { ...DEFAULT_WRITER, backend: "openai_compatible" as const, model: " m ", baseUrl: "http://x/v1", apiKeyEnv: "KEY" };
    expect(writerRequest(choice)).toEqual({ settings: { backend: "openai_compatible", model: "m", base_url: "http://x/v1", api_key_env: "KEY" } });
    expect(writerRequest({ ...choice, apiKey: "sk-1" })?.api_key).toBe("sk-1");
  });
  it("leaves the base URL out for a local model", () => {
    expect(writerRequest({ ...DEFAULT_WRITER, backend: "local", model: "/models/x", baseUrl: "ignored" })).toEqual({
      settings: { backend: "local", model: "/models/x" },
    });
  });
});

describe("batchWritingFacts", () => {
  it("names the backends, tokens, percentiles and how much the template wrote", () => {
    const w = { replies: 2, backends: ["local"], cost: 0, tokens: 120, latency_ms: { p50: 40.2, p95: 90.7 }, fallback_share: 0.5, faults: {} };
    expect(batchWritingFacts(w)).toBe("2 replies by local · 120 tokens · p50 40 ms, p95 91 ms · template wrote 50 %");
  });
});

describe("textBlocks", () => {
  it("shows the code a code team wrote as code, between its headings and notes", () => {
    const text = "## Code\n```python\ndef clamp(x, lo, hi):\n\n    return max(lo, min(hi, x))\n```\n## Notes\nClamps x.\n## Tests\nThe hidden tests: 5 of 5 passed (all).";
    expect(textBlocks(text)).toEqual([
      { kind: "heading", text: "Code" },
      { kind: "code", text: "def clamp(x, lo, hi):\n\n    return max(lo, min(hi, x))", language: "python" },
      { kind: "heading", text: "Notes" },
      { kind: "paragraph", text: "Clamps x." },
      { kind: "heading", text: "Tests" },
      { kind: "paragraph", text: "The hidden tests: 5 of 5 passed (all)." },
    ]);
  });
  it("keeps an unclosed fence as code and a declined request as one paragraph", () => {
    expect(textBlocks("```\nx = 1")).toEqual([{ kind: "code", text: "x = 1", language: "" }]);
    expect(textBlocks("Sorry, the Code generation team cannot do this request.")).toHaveLength(1);
  });
});
