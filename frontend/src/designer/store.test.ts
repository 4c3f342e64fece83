import { beforeEach, describe, expect, it } from "vitest";
import { edgeLabel, problemTargets, sanitize, uniqueId, useDesigner } from "./store";
import type { RoleInfo, TeamSpec } from "./types";

const role = (name: string): RoleInfo => ({
  name,
  description: "",
  default_prompt: `You are the ${name}.`,
  decision_weight: 1,
  external_uncertainty: 0,
});

const initial = useDesigner.getState();
const store = () => useDesigner.getState();

beforeEach(() => {
  useDesigner.setState(initial, true);
});

describe("designer store: editing the spec", () => {
  it("adds an agent with a fresh id, the role's prompt and default settings, and selects it", () => {
    const first = store().addAgent(role("triage"), { x: 10, y: 20 });
    const second = store().addAgent(role("triage"), { x: 30, y: 40 });
    expect([first, second]).toEqual(["triage", "triage_2"]);
    expect(store().spec.agents[0]).toMatchObject({ id: "triage", role: "triage", prompt: "You are the triage.", update_period: 1 });
    expect(store().layout).toEqual({ triage: { x: 10, y: 20 }, triage_2: { x: 30, y: 40 } });
    expect(store().selection).toEqual({ kind: "agent", id: "triage_2" });
    expect(store().revision).toBe(2);
  });

  it("connects two agents once per kind, never an agent to itself", () => {
    store().load({ agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }] }, { a: { x: 0, y: 0 }, b: { x: 1, y: 1 } }, false);
    store().connect("a", "b", "communication");
    store().connect("a", "b", "communication"); // duplicate: ignored
    store().connect("a", "b", "dependency"); // another kind: a second edge
    store().connect("a", "a", "communication"); // self-loop: ignored
    expect(store().spec.edges).toEqual([
      { source: "a", target: "b", kind: "communication" },
      { source: "a", target: "b", kind: "dependency" },
    ]);
    expect(store().selection).toEqual({ kind: "edge", index: 1 });
    expect(store().revision).toBe(2);
  });

  it("treats an edge without a kind as communication when checking for duplicates", () => {
    store().load({ agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }], edges: [{ source: "a", target: "b" }] }, { a: { x: 0, y: 0 }, b: { x: 1, y: 1 } }, false);
    store().connect("a", "b", "communication");
    expect(store().spec.edges).toHaveLength(1);
  });

  it("deleting an agent removes its edges and position too", () => {
    const spec: TeamSpec = {
      agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }, { id: "c", role: "r", prompt: "" }],
      edges: [
        { source: "a", target: "b" },
        { source: "b", target: "c" },
        { source: "a", target: "c" },
      ],
    };
    store().load(spec, { a: { x: 0, y: 0 }, b: { x: 1, y: 1 }, c: { x: 2, y: 2 } }, false);
    store().select({ kind: "agent", id: "b" });
    store().deleteSelection();
    expect(store().spec.agents.map((a) => a.id)).toEqual(["a", "c"]);
    expect(store().spec.edges).toEqual([{ source: "a", target: "c" }]);
    expect(Object.keys(store().layout)).toEqual(["a", "c"]);
    expect(store().selection).toBeNull();
  });

  it("deleting an edge removes only that edge", () => {
    store().load(
      { agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }], edges: [{ source: "a", target: "b" }, { source: "b", target: "a" }] },
      { a: { x: 0, y: 0 }, b: { x: 1, y: 1 } },
      false,
    );
    store().select({ kind: "edge", index: 0 });
    store().deleteSelection();
    expect(store().spec.edges).toEqual([{ source: "b", target: "a" }]);
    expect(store().spec.agents).toHaveLength(2);
  });

  it("renaming an agent follows it through edges, fallback rules and the layout, and refuses bad or taken ids", () => {
    const spec: TeamSpec = {
      agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }],
      edges: [{ source: "a", target: "b" }],
      fallback: { kind: "keyword_router", rules: [{ keywords: ["refund"], route_to: "a" }] },
    };
    store().load(spec, { a: { x: 5, y: 6 }, b: { x: 1, y: 1 } }, false);
    expect(store().renameAgent("a", "Bad-Id")).toMatch(/lowercase/);
    expect(store().renameAgent("a", "b")).toMatch(/already called b/);
    expect(store().revision).toBe(0);
    expect(store().renameAgent("a", "billing")).toBeNull();
    expect(store().spec.agents.map((a) => a.id)).toEqual(["billing", "b"]);
    expect(store().spec.edges).toEqual([{ source: "billing", target: "b" }]);
    expect(store().spec.fallback?.rules?.[0].route_to).toBe("billing");
    expect(store().layout).toEqual({ b: { x: 1, y: 1 }, billing: { x: 5, y: 6 } });
  });

  it("undo and redo step through edits", () => {
    store().addAgent(role("triage"), { x: 0, y: 0 });
    store().addAgent(role("tech"), { x: 1, y: 0 });
    store().undo();
    expect(store().spec.agents.map((a) => a.id)).toEqual(["triage"]);
    store().undo();
    expect(store().spec.agents).toEqual([]);
    store().redo();
    expect(store().spec.agents.map((a) => a.id)).toEqual(["triage"]);
    // A new edit after an undo drops the redo branch.
    store().addAgent(role("billing"), { x: 2, y: 0 });
    store().redo();
    expect(store().spec.agents.map((a) => a.id)).toEqual(["triage", "billing"]);
  });

  it("a drag is one undo step, however many moves it makes", () => {
    store().addAgent(role("triage"), { x: 0, y: 0 });
    const revision = store().revision;
    store().moveAgent("triage", { x: 5, y: 5 }, false);
    store().moveAgent("triage", { x: 9, y: 9 }, false);
    expect(store().revision).toBe(revision); // mid-drag: no history, no autosave
    store().moveAgent("triage", { x: 12, y: 12 }, true);
    expect(store().revision).toBe(revision + 1);
    store().undo();
    expect(store().layout.triage).toEqual({ x: 0, y: 0 });
  });

  it("a read-only draft ignores edits", () => {
    store().load({ agents: [{ id: "a", role: "r", prompt: "" }] }, { a: { x: 0, y: 0 } }, true);
    store().updateAgent("a", { prompt: "changed" });
    store().moveAgent("a", { x: 9, y: 9 }, true);
    expect(store().spec.agents[0].prompt).toBe("");
    expect(store().layout.a).toEqual({ x: 0, y: 0 });
    expect(store().revision).toBe(0);
  });

  it("copy and paste gives the copy a fresh id, offset from the original", () => {
    store().addAgent(role("tech"), { x: 100, y: 100 });
    store().copySelection();
    store().paste();
    store().paste();
    expect(store().spec.agents.map((a) => a.id)).toEqual(["tech", "tech_2", "tech_3"]);
    expect(store().layout.tech_2).toEqual({ x: 140, y: 140 });
    expect(store().layout.tech_3).toEqual({ x: 180, y: 180 });
  });

  it("load lays out agents that have no stored position and keeps the ones that do", () => {
    store().load({ agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }], edges: [{ source: "a", target: "b" }] }, { a: { x: 7, y: 7 } }, false);
    expect(store().layout.a).toEqual({ x: 7, y: 7 });
    expect(store().layout.b).toEqual({ x: expect.any(Number), y: expect.any(Number) });
    expect(store().past).toEqual([]); // loading is not an edit
  });
});

describe("designer store: pure helpers", () => {
  it("sanitize drops what the canvas cannot draw", () => {
    const spec = sanitize({
      agents: [{ id: "a", role: "r", prompt: "" }, { role: "no id" }, "junk"],
      edges: [{ source: "a", target: "b" }, { source: "a" }, null],
      reward: "not an object",
      evolution: { phases: "not a list" },
      training: { episodes: 10 },
    });
    expect(spec.agents.map((a) => a.id)).toEqual(["a"]);
    expect(spec.edges).toEqual([{ source: "a", target: "b" }]);
    expect(spec.reward).toBeUndefined();
    expect(spec.evolution).toEqual({ phases: [] });
    expect(spec.training).toEqual({ episodes: 10 });
    expect(sanitize(null)).toEqual({ agents: [] });
  });

  it("uniqueId turns any name into a valid, unused id", () => {
    const spec: TeamSpec = { agents: [{ id: "qa_bot", role: "r", prompt: "" }, { id: "qa_bot_2", role: "r", prompt: "" }] };
    expect(uniqueId(spec, "QA Bot")).toBe("qa_bot_3");
    expect(uniqueId(spec, "42 things")).toBe("things");
    expect(uniqueId(spec, "123")).toBe("agent");
  });

  it("problemTargets maps validation paths to agent ids and edge indexes", () => {
    const spec: TeamSpec = { agents: [{ id: "a", role: "r", prompt: "" }, { id: "b", role: "r", prompt: "" }] };
    const { agents, edges } = problemTargets(spec, ["$.agents[1].prompt", "$.agents[1].lora.r", "$.agents[9]", "$.edges[2]", "$.reward"]);
    expect([...agents]).toEqual([["b", 2]]);
    expect([...edges]).toEqual([2]);
  });

  it("edgeLabel names the kind, communication by default", () => {
    expect(edgeLabel({ source: "a", target: "b" })).toBe("a → b (communication)");
    expect(edgeLabel({ source: "a", target: "b", kind: "dependency" })).toBe("a → b (dependency)");
  });
});
