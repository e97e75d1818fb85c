/**
 * Issue 42, item 3: a conversation carried to another machine. For each real CLI: a one-shot call
 * through `sessionpin run --key` on HOME A in folder A; `sessionpin export --key` there; the
 * archive copied to sandbox B and sandbox A deleted, HOME, folder and state (nothing can be read
 * from it any more); `sessionpin import --cwd B` under HOME B; then the next one-shot call in
 * folder B: the request the fake model API receives carries the earlier turn, and the session is
 * the one carried (its ID unchanged), resumed rather than started anew. The same archive imported
 * again then finds a newer copy of the session in place (the turn just taken) and is refused,
 * with nothing of HOME B changed.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Cleanup, cwdOf } from "../e2e/support.js";
import { CLI } from "../helpers/sandbox.js";
import { headlessCall, oneShot } from "./headless.js";
import { sessionsByKey, startsOf } from "./keyed-sessions.js";
import { CALL_MS, CARRIED_AGENTS } from "./carry-support.js";
import { fakeApiPerTest, realSandbox } from "./support.js";

const KEY = "carried-thread";

/**
 * HOME's files and their sha256, but those an agent's own command writes whenever it runs
 * (OpenCode's database and log: the import asks `opencode export` whether the session is there).
 */
function homeTree(home: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === join(home, ".local", "share", "opencode") || path === join(home, ".cache")) continue;
      if (lstatSync(path).isDirectory()) walk(path);
      else out[path.slice(home.length)] = lstatSync(path).isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : "other";
    }
  };
  walk(home);
  return out;
}

for (const agent of CARRIED_AGENTS) {
  describe(`${agent.label} ${agent.version}: carried to another HOME and folder`, () => {
    const cleanup = new Cleanup();
    const fake = fakeApiPerTest(cleanup, () => agent.start());

    it("one-shot on HOME A in folder A, export, import on HOME B in folder B: the next one-shot continues the session with its earlier turn", async () => {
      const a = realSandbox(cleanup);
      await agent.prepare(a, fake());
      const b = realSandbox(cleanup);
      await agent.prepare(b, fake());
      const ms: Record<string, number> = {};

      const first = await oneShot(a, KEY, agent.oneShot("remember the word zebra"), { boundMs: CALL_MS });
      expect(first.code, first.stderr).toBe(0);
      ms["first call"] = first.ms;
      const carried = sessionsByKey(a).get(KEY)?.id;
      expect(carried, "the first call pinned its session").toBeTruthy();

      const archive = join(a.dir, "carry.tgz");
      const exported = await headlessCall(a, [process.execPath, CLI, "export", "--key", KEY, "-o", archive, "--json"], { boundMs: CALL_MS * 2, what: "sessionpin export" });
      expect(exported.code, exported.stderr).toBe(0);
      ms["export"] = exported.ms;
      const { files, agent: made } = JSON.parse(exported.stdout) as { files: Array<{ path: string; size: number }>; agent: { version: string | null } };
      expect(made.version, "the manifest names the agent's version").toContain(agent.version);

      // Another machine: only the archive goes along; HOME A, folder A and their state are gone.
      copyFileSync(archive, join(b.dir, "carry.tgz"));
      rmSync(a.dir, { recursive: true, force: true });
      expect(existsSync(a.dir)).toBe(false);

      const imported = await headlessCall(b, [process.execPath, CLI, "import", join(b.dir, "carry.tgz"), "--cwd", cwdOf(b)], { boundMs: CALL_MS * 2, what: "sessionpin import" });
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(/^wrote pointer .*: .* resumed by the next run in /m);
      ms["import"] = imported.ms;

      const before = fake().turns().length;
      const next = await oneShot(b, KEY, agent.oneShot("which word?"), { boundMs: CALL_MS });
      expect(next.code, next.stderr).toBe(0);
      ms["next call"] = next.ms;
      const turns = fake().turns().slice(before);
      expect(turns.at(-1), `the request of the call in folder B; stderr: ${next.stderr}`).toEqual({ asked: ["remember the word zebra", "which word?"], answer: "FAKE-API: the word is zebra." });

      const row = sessionsByKey(b).get(KEY);
      expect(row?.id, "the carried session, resumed, not a new one").toBe(carried);
      expect(row?.cwd).toBe(cwdOf(b));
      const starts = startsOf(row);
      expect(starts, "one start in folder B: the warm one").toHaveLength(1);
      expect(starts[0]?.join(" ")).toContain(carried);

      // The archive again: the copy here has a turn more, and is newer. Refused, HOME B as it was.
      const home = homeTree(b.home);
      const again = await headlessCall(b, [process.execPath, CLI, "import", join(b.dir, "carry.tgz"), "--cwd", cwdOf(b)], { boundMs: CALL_MS * 2, env: { NODE_DISABLE_COMPILE_CACHE: "1" }, what: "sessionpin import, again" });
      expect(again.code, again.stderr).toBe(3);
      expect(again.stderr).toMatch(new RegExp(`^sessionpin import: .*carry\\.tgz: refused: a newer copy of ${agent.name} session .* is here \\(.*\\): left as it is, nothing written\\n$`));
      expect(homeTree(b.home)).toEqual(home);

      // For the report (test/interop/README.md): what travelled and how long each step took.
      console.log(`${agent.label} (manifest: ${made.version}): ${files.map((f) => `${f.path} (${f.size} B)`).join(", ")}; ${Object.entries(ms).map(([step, t]) => `${step} ${t} ms`).join(", ")}`);
    }, CALL_MS * 6);
  });
}
