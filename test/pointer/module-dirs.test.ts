/**
 * Where Coder's modules keep sessionpin's pointers (beside agentapi's state file), found in a temp
 * HOME of real folders and files: the registry's `.coder-modules/<namespace>/<module>/`, the
 * legacy `.<agent>-module/` and kiro-cli's `.kiro/`; and the walk stays bounded whatever else is
 * there (FIFOs, symbolic link loops, a huge file).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keptPointers, keptPointersFor, moduleFolders } from "../../src/pointer/module-dirs.js";
import { keepInModule } from "./module-home.js";
import { useTempDir } from "./tempdir.js";

const tmp = useTempDir();
const CWD = "/home/coder/project";

describe("moduleFolders", () => {
  it("lists .coder-modules/<namespace>/<module>, .<agent>-module and .kiro, nothing deeper or elsewhere", async () => {
    const home = tmp.path;
    for (const dir of [
      ".coder-modules/coder/claude-code/scripts", ".coder-modules/coder-labs/codex", ".amp-module/logs",
      ".cursor-cli-module", ".kiro/sessions", ".claude", ".cache/x-module", "project",
    ]) mkdirSync(join(home, dir), { recursive: true });
    writeFileSync(join(home, ".coder-modules", "coder", "a-file"), "");
    writeFileSync(join(home, ".file-module"), "");
    expect(await moduleFolders(home)).toEqual([
      ".amp-module", ".coder-modules/coder-labs/codex", ".coder-modules/coder/claude-code", ".cursor-cli-module", ".kiro",
    ].map((dir) => join(home, dir)));
  });

  it("follows no link and is not held up by a loop or a FIFO among them", async () => {
    const home = tmp.path;
    mkdirSync(join(home, ".coder-modules", "coder"), { recursive: true });
    symlinkSync(".loop-module", join(home, ".loop-module"));
    symlinkSync("self", join(home, ".coder-modules", "coder", "self"));
    symlinkSync("..", join(home, ".coder-modules", "up"));
    symlinkSync("/", join(home, ".root-module"));
    execFileSync("mkfifo", [join(home, ".fifo-module")]);
    execFileSync("mkfifo", [join(home, ".coder-modules", "coder", "fifo")]);
    expect(await moduleFolders(home)).toEqual([]);
  });

  it("is empty for a home that is not there or not a folder", async () => {
    expect(await moduleFolders(join(tmp.path, "missing"))).toEqual([]);
    writeFileSync(join(tmp.path, "file"), "");
    expect(await moduleFolders(join(tmp.path, "file"))).toEqual([]);
  });
});

describe("keptPointersFor", () => {
  it("finds the pointer run kept for this agent and folder, in the new and the legacy layouts", async () => {
    const home = tmp.path;
    const claude = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD });
    const amp = await keepInModule(home, ".amp-module", { agent: "amp", cwd: CWD, id: "T-019c479a-39cc-72af-a2d1-65a965c076ec" });
    expect((await keptPointersFor(home, { agent: "claude", cwd: CWD, key: undefined })).map((k) => k.path)).toEqual([claude]);
    expect((await keptPointersFor(home, { agent: "amp", cwd: CWD, key: undefined })).map((k) => k.path)).toEqual([amp]);
    expect(await keptPointersFor(home, { agent: "codex", cwd: CWD, key: undefined })).toEqual([]);
  });

  it("takes a keyed pointer for its key only, and an unkeyed one only without a key", async () => {
    const home = tmp.path;
    const keyed = await keepInModule(home, ".coder-modules/coder-labs/codex", { agent: "codex", cwd: CWD, key: "thread-1" });
    expect((await keptPointersFor(home, { agent: "codex", cwd: CWD, key: "thread-1" })).map((k) => k.path)).toEqual([keyed]);
    expect(await keptPointersFor(home, { agent: "codex", cwd: CWD, key: "thread-2" })).toEqual([]);
    expect(await keptPointersFor(home, { agent: "codex", cwd: CWD, key: undefined })).toEqual([]);
    await keepInModule(home, ".codex-module", { agent: "codex", cwd: CWD });
    expect(await keptPointersFor(home, { agent: "codex", cwd: CWD, key: "thread-1" })).toHaveLength(1);
  });

  it("never takes another folder's pointer, or one whose content names another agent", async () => {
    const home = tmp.path;
    await keepInModule(home, ".claude-module", { agent: "claude", cwd: "/home/coder/other" });
    expect(await keptPointersFor(home, { agent: "claude", cwd: CWD, key: undefined })).toEqual([]);
    // A Claude pointer copied under Amp's name is Claude's.
    const copied = await keepInModule(home, ".amp-module", { agent: "claude", cwd: CWD });
    execFileSync("mv", [copied, join(home, ".amp-module", "sessionpin-amp.json")]);
    expect(await keptPointersFor(home, { agent: "amp", cwd: CWD, key: undefined })).toEqual([]);
  });

  it("puts the most recently written first", async () => {
    const home = tmp.path;
    const older = await keepInModule(home, ".claude-module", { agent: "claude", cwd: CWD, writtenAt: 1_700_000_000 });
    const newer = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD, writtenAt: 1_800_000_000 });
    expect((await keptPointersFor(home, { agent: "claude", cwd: CWD, key: undefined })).map((k) => k.path)).toEqual([newer, older]);
  });

  it("skips a FIFO, a link, a folder or an oversized file in a pointer's place, without blocking", async () => {
    const home = tmp.path;
    for (const dir of [".claude-module", ".amp-module", ".codex-module", ".coder-modules/coder/claude-code"]) mkdirSync(join(home, dir), { recursive: true });
    execFileSync("mkfifo", [join(home, ".claude-module", "sessionpin-claude.json")]);
    symlinkSync("sessionpin-claude.json", join(home, ".coder-modules", "coder", "claude-code", "sessionpin-claude.json"));
    mkdirSync(join(home, ".amp-module", "sessionpin-claude.json"));
    writeFileSync(join(home, ".codex-module", "sessionpin-claude.json"), `{"agent":"claude","pad":"${"x".repeat(2 << 20)}"}`);
    expect(await keptPointersFor(home, { agent: "claude", cwd: CWD, key: undefined })).toEqual([]);
  });
});

describe("keptPointers", () => {
  it("lists every pointer file in the folders, readable or not, but no set-aside copy, lock, log or temp file", async () => {
    const home = tmp.path;
    const folder = join(home, ".coder-modules", "coder", "claude-code");
    const plain = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD });
    const keyed = await keepInModule(home, ".coder-modules/coder/claude-code", { agent: "claude", cwd: CWD, key: "k" });
    for (const other of [
      "sessionpin-claude.rejected-20261122T213000Z.json", "sessionpin-claude.cleared-20261122T213000Z-2.json",
      "sessionpin-claude.json.lock", "sessionpin-claude.log", ".sessionpin-claude.json.123.abc.tmp", "agentapi-state.json",
    ]) writeFileSync(join(folder, other), "{}");
    execFileSync("mkfifo", [join(folder, "sessionpin-my-agent.json")]);
    const found = await keptPointers(await moduleFolders(home));
    expect(found.map((k) => [k.path, k.named, k.read.kind])).toEqual([
      [keyed, "claude", "ok"],
      [plain, "claude", "ok"],
      [join(folder, "sessionpin-my-agent.json"), "my-agent", "invalid"],
    ]);
    expect(found[2]?.read).toMatchObject({ reason: "not a regular file" });
  });
});
