import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { carriedProject } from "../../src/agents/gemini.js";
import { agents } from "../../src/agents/registry.js";
import type { CarryFiles, RunContext, StoreLook } from "../../src/agents/types.js";
import { sha256Hex } from "../../src/digest.js";
import { FolderRewrite, judge, TurnReader } from "../../src/state/carry-turns.js";

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

const filesOf = (name: keyof typeof agents): CarryFiles => {
  const carry = agents[name].carry;
  if (carry?.kind !== "files") throw new Error(`${name} carries no files`);
  return carry;
};

describe("FolderRewrite", () => {
  const rewrite = (chunks: readonly string[], from: readonly string[], to: readonly string[]): string => {
    const r = new FolderRewrite(from, to);
    return Buffer.concat([...chunks.map((c) => r.push(Buffer.from(c))), r.end()]).toString();
  };

  it("replaces each whole JSON string naming the old folder, also when a chunk ends inside it", () => {
    const text = '{"cwd":"/work/a","file":"/work/a/x.ts","hash":"h-a"}\n{"cwd":"/work/a"}';
    const chunked = [text.slice(0, 9), text.slice(9, 11), text.slice(11, 50), text.slice(50)];
    expect(rewrite(chunked, ["/work/a", "h-a"], ["/srv/project-b", "h-b"])).toBe('{"cwd":"/srv/project-b","file":"/work/a/x.ts","hash":"h-b"}\n{"cwd":"/srv/project-b"}');
  });

  it("changes nothing for the same folder, and nothing but the names", () => {
    expect(rewrite(['{"cwd":"/w"}'], ["/w"], ["/w"])).toBe('{"cwd":"/w"}');
    expect(rewrite(['"/w" "/w2" "x/w"'], ["/w"], ["/v"])).toBe('"/v" "/w2" "x/w"');
    expect(rewrite(['{"p":"/d/\\u00e9"}'], ["/d/é"], ["/e"])).toBe('{"p":"/d/\\u00e9"}');
  });
});

describe("which copy of a session is newer: judged by turns", () => {
  it("tells same, older here, newer here and apart", () => {
    expect(judge(["a", "b"], ["a", "b"])).toEqual({ kind: "same" });
    expect(judge(["a"], ["a", "b"])).toEqual({ kind: "older-here", here: 1, carried: 2 });
    expect(judge(["a", "b", "c"], ["a", "b"])).toEqual({ kind: "newer-here", here: 3, carried: 2 });
    expect(judge(["a", "x"], ["a", "b", "c"])).toEqual({ kind: "apart", from: 2, here: 2, carried: 3 });
  });

  it("omp's title line, rewritten in place, is no turn", () => {
    const turns = (text: string): readonly string[] | undefined => {
      const reader = new TurnReader(filesOf("omp"));
      reader.push(Buffer.from(text));
      return reader.end();
    };
    const body = '{"type":"session","id":"x"}\n{"type":"message","n":1}\n';
    expect(turns(`{"type":"title","title":"","pad":"   "}\n${body}`)).toEqual(turns(`{"type":"title","title":"A title","pad":""}\n${body}`));
    expect(turns(body)).toHaveLength(2);
  });

  it("Auggie's session is one JSON document: its turns are its exchanges", () => {
    const reader = new TurnReader(filesOf("auggie"));
    reader.push(Buffer.from(JSON.stringify({ sessionId: "s", modified: "t", chatHistory: [{ exchange: { request_id: "r1" } }, { exchange: { request_id: "r2" } }] })));
    expect(reader.end()).toEqual(["r1", "r2"]);
  });
});

describe("Gemini's project for a folder, as 0.61 would give it", () => {
  const home = "/h/.gemini";
  it("its projects.json entry, whose marker does not name another folder", () => {
    expect(carriedProject(home, "/w/app", lookOf({ [`${home}/projects.json`]: JSON.stringify({ projects: { "/w/app": "app-2" } }) }))).toBe("app-2");
  });
  it("else the folder whose marker names it", () => {
    expect(carriedProject(home, "/w/app", lookOf({ [`${home}/tmp/odd/.project_root`]: "/w/app" }))).toBe("odd");
  });
  it("else the first free slug: not in projects.json, no marker of another folder", () => {
    const look = lookOf({
      [`${home}/projects.json`]: JSON.stringify({ projects: { "/x/app": "app" } }),
      [`${home}/tmp/app-1/.project_root`]: "/y/app",
    });
    expect(carriedProject(home, "/w/App", look)).toBe("app-2");
    expect(carriedProject(home, "/w/new", lookOf({}))).toBe("new");
  });
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
