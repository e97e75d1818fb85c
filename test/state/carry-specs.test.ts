import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { RunContext, StoreLook } from "../../src/agents/types.js";
import { sha256Hex } from "../../src/digest.js";
import { filesOf } from "./carry-support.js";

/** A made-up store: folders (paths ending in `/`) and files with their text. */
function lookOf(files: Record<string, string>): StoreLook {
  return {
    list(dir) {
      const prefix = `${dir}/`;
      const names = new Map<string, "file" | "folder">();
      for (const path of Object.keys(files)) {
        if (!path.startsWith(prefix)) continue;
        const [name, ...rest] = path.slice(prefix.length).split("/");
        if (name !== undefined && name !== "") names.set(name, rest.length > 0 ? "folder" : "file");
      }
      return names.size === 0 ? undefined : [...names].map(([name, kind]) => ({ name, kind }));
    },
    head: (path, max) => files[path]?.slice(0, max),
    size: (path) => files[path]?.length,
  };
}

describe("Gemini's carry spec", () => {
  const home = "/h/.gemini";
  it("registers the folder in projects.json and marks its project, keeping the other entries", () => {
    const carry = filesOf("gemini");
    const context: RunContext = { home: "/h", cwd: "/w/app", env: {} };
    const look = lookOf({ [`${home}/projects.json`]: JSON.stringify({ projects: { "/x/app": "app" } }) });
    const root = carry.root(context, look);
    expect(root).toBe(join(home, "tmp", "app-1", "chats"));
    expect(carry.register?.(context, root, look)).toEqual([
      { path: `${home}/projects.json`, text: JSON.stringify({ projects: { "/x/app": "app", "/w/app": "app-1" } }, null, 2) },
      { path: `${home}/tmp/app-1/.project_root`, text: "/w/app" },
    ]);
    expect(carry.folderNames("/w/app")).toEqual(["/w/app", sha256Hex("/w/app")]);
  });
  it("takes the session's chats files (stubs too), the biggest as its transcript, and its subagents' folder", () => {
    const id = "68924952-4292-4d8f-87b3-8e63a7791d44";
    const chats = `${home}/tmp/app/chats`;
    const look = lookOf({
      [`${chats}/session-2026-11-29T03-50-68924952.jsonl`]: `{"sessionId":"${id}","projectHash":"h"}\n{"type":"user"}\n{"type":"gemini"}\n`,
      [`${chats}/session-2026-11-29T04-10-68924952.jsonl`]: `{"sessionId":"${id}","projectHash":"h"}\n`,
      [`${chats}/session-2026-11-29T04-11-68924952.jsonl`]: `{"sessionId":"68924952-0000-4000-8000-000000000000"}\n`,
      [`${chats}/${id}/sub.jsonl`]: "{}\n",
    });
    expect(filesOf("gemini").files(id, chats, "", look)).toEqual([
      { path: "session-2026-11-29T03-50-68924952.jsonl", transcript: true },
      { path: "session-2026-11-29T04-10-68924952.jsonl" },
      { path: `${id}/sub.jsonl` },
    ]);
  });
});

describe("each agent's files are its session's own", () => {
  const uuid = "01a2256d-1042-7a71-8119-7557ba4f64e7";
  it.each([
    ["claude", `${uuid}.jsonl`, true], ["claude", `${uuid}/subagents/a.jsonl`, true], ["claude", "other.jsonl", false],
    ["codex", `2026/11/29/rollout-2026-11-29T03-50-34-${uuid}.jsonl`, true], ["codex", `2026/11/29/rollout-x-${uuid}.jsonl`, false],
    ["copilot", `${uuid}/events.jsonl`, true], ["copilot", `${uuid}/.workspace-fork.lock`, false],
    ["qwen", `${uuid}.jsonl`, true], ["auggie", `${uuid}.json`, true], ["auggie", `${uuid}.jsonl`, false],
    ["pi", `2026-11-29T03-51-18-007Z_${uuid}.jsonl`, true], ["omp", `x_${uuid}.jsonl`, false],
  ] as const)("%s owns %s: %s", (agent, path, owned) => {
    expect(filesOf(agent).owns(path, uuid)).toBe(owned);
  });

  it("says, for every built-in agent, how its sessions travel", () => {
    const kinds = Object.fromEntries(Object.entries(agents).map(([name, plugin]) => [name, plugin.carry?.kind]));
    expect(kinds).toEqual({
      aider: "none", amp: "pointer", auggie: "files", claude: "files", codex: "files", copilot: "files", cursor: "none",
      gemini: "files", goose: "none", kiro: "none", omp: "files", opencode: "command", pi: "files", q: "none", qwen: "files",
    });
  });
});
