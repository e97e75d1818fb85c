/**
 * Before a warm start, the pointer's session is looked up in the agent's own store: one gone
 * from it is set aside before launch (`plan` says why, `run` launches nothing the agent would
 * refuse). Every plugin with a store, on real folders; entry names as each agent writes them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pluginNamed } from "../../src/agents/registry.js";
import type { RunContext } from "../../src/agents/types.js";
import { writePointer } from "../../src/pointer/store.js";
import { readStartInputs } from "../../src/run/inputs.js";
import { decide } from "../../src/run/plan.js";

const UUID = "0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40";
const OTHER = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const NOW = new Date("2026-11-25T12:00:00Z");

// Each agent's entry for a session, as the agent names it (a folder when it ends in "/").
const rows: ReadonlyArray<{ agent: string; id: string; other: string; entry: (id: string) => string }> = [
  { agent: "claude", id: UUID, other: OTHER, entry: (id) => `${id}.jsonl` },
  // A rollout of a week ago: further back than the folders watched while Codex runs.
  { agent: "codex", id: UUID, other: OTHER, entry: (id) => `2026/11/18/rollout-2026-11-18T10-00-00-${id}.jsonl` },
  { agent: "gemini", id: UUID, other: OTHER, entry: (id) => `session-2026-11-18T10-00-${id.slice(0, 8)}.jsonl` },
  { agent: "copilot", id: UUID, other: OTHER, entry: (id) => `${id}/` },
  { agent: "auggie", id: UUID, other: OTHER, entry: (id) => `${id}.json` },
  { agent: "omp", id: "01JQ4Z8Y5W2X3V6T7S8R9", other: "01JQ4Z8Y5W2X3V6T7S8R0", entry: (id) => `2026-11-18T10-00-00-000Z_${id}.jsonl` },
  { agent: "pi", id: "01JQ4Z8Y5W2X3V6T7S8R9", other: "01JQ4Z8Y5W2X3V6T7S8R0", entry: (id) => `2026-11-18T10-00-00-000Z_${id}.jsonl` },
  { agent: "qwen", id: UUID, other: OTHER, entry: (id) => `${id}.jsonl` },
  { agent: "kiro", id: UUID, other: OTHER, entry: (id) => `${id}.json` },
  { agent: "cursor", id: UUID, other: OTHER, entry: (id) => `${id}/` },
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp(agent: string) {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-store-"));
  dirs.push(dir);
  const cwd = join(dir, "project");
  mkdirSync(cwd);
  const context: RunContext = { home: join(dir, "home"), cwd, env: { HOME: join(dir, "home") } };
  const plugin = pluginNamed(agent);
  const store = plugin?.store;
  if (plugin === undefined || store === undefined) throw new Error(`${agent} has no store`);
  const folder = (store.everywhere?.(context) ?? store.where(context, NOW))[0]?.dir ?? "";
  const put = (entry: string): void => {
    const path = join(folder, entry);
    if (entry.endsWith("/")) mkdirSync(path, { recursive: true });
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, "{}\n");
    }
  };
  return { dir, cwd, context, plugin, put, pointerPath: join(dir, "state", "pointer.json") };
}

async function plan(id: string, s: ReturnType<typeof setUp>, args: readonly string[] = []) {
  await writePointer(s.pointerPath, {
    version: 1, agent: s.plugin.name, id, state: "confirmed", cwd: s.cwd, capturedAt: NOW.toISOString(), source: { rule: "test" }, history: [],
  });
  const inputs = await readStartInputs(s.pointerPath, s.plugin, args, s.context, NOW);
  return decide(s.plugin, [], inputs.read, { cwd: s.cwd, prompt: undefined, fresh: () => OTHER, pointerPath: s.pointerPath, explicitPointer: false, gone: inputs.gone });
}

describe.each(rows)("$agent's store before a warm start", ({ agent, id, other, entry }) => {
  it("resumes a session the store holds", async () => {
    const s = setUp(agent);
    s.put(entry(other));
    s.put(entry(id));
    expect(await plan(id, s)).toMatchObject({ mode: "warm", id });
  });

  it("sets aside a session gone from it, before launch, and says why", async () => {
    const s = setUp(agent);
    s.put(entry(other));
    const decision = await plan(id, s);
    expect(decision).toMatchObject({ mode: "cold", setsAside: "gone" });
    expect(decision.reason).toContain(`session ${id} is gone from ${agent}'s own store`);
  });

  it("cannot tell when the store's folder is not there at all, and leaves it to the launch", async () => {
    const s = setUp(agent);
    expect(await plan(id, s)).toMatchObject({ mode: "warm", id });
  });
});

it("calls nothing gone when the command moves the store itself (pi's --session-dir, Copilot's --config-dir)", async () => {
  for (const [agent, id, args] of [["pi", "01JQ4Z8Y5W2X3V6T7S8R9", ["--session-dir", "/elsewhere"]], ["copilot", UUID, ["--config-dir=/elsewhere"]]] as const) {
    const s = setUp(agent);
    s.put(agent === "pi" ? `2026-11-18T10-00-00-000Z_01JQ4Z8Y5W2X3V6T7S8R0.jsonl` : `${OTHER}/`);
    expect(await plan(id, s, args), agent).toMatchObject({ mode: "warm", id });
    expect(await plan(id, s), agent).toMatchObject({ mode: "cold", setsAside: "gone" });
  }
});
