/**
 * A carry between two machines in one temp folder: HOME A and folder A, HOME B and folder B, each
 * with its own state folder; session files of a kind each agent writes; archives built with the
 * archive library (tar's own Header, for the malformed ones) and a tree of what a folder holds, to
 * prove that a refused import wrote nothing.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { Header } from "tar";
import { afterEach, beforeEach } from "vitest";
import { agents } from "../../src/agents/registry.js";
import type { AgentPlugin, CarryFiles } from "../../src/agents/types.js";
import { resolvePointerPath } from "../../src/pointer/path.js";
import { exportSession } from "../../src/state/carry-export.js";
import { importSession, type ImportResult } from "../../src/state/carry-import.js";

/** A built-in agent's carry spec, for one that carries its session as files. */
export function filesOf(name: keyof typeof agents): CarryFiles {
  const carry = agents[name].carry;
  if (carry?.kind !== "files") throw new Error(`${name} carries no files`);
  return carry;
}

export const CLAUDE_ID = "9bb36586-1edb-44fc-b717-60e2a1f5814b";

export interface Machine {
  readonly home: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export class TwoMachines {
  readonly dir = realpathSync(mkdtempSync(join(tmpdir(), "sessionpin-carry-")));
  readonly a: Machine = this.#machine("a", "work-a");
  readonly b: Machine = this.#machine("b", "work-b");
  readonly archive = join(this.dir, "carry.tgz");

  #machine(name: string, folder: string): Machine {
    const home = join(this.dir, `home-${name}`);
    const cwd = join(this.dir, name, folder);
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    // PATH without the agents: `<agent> --version` is not found, and the manifest says null.
    return { home, cwd, env: { HOME: home, XDG_STATE_HOME: join(home, ".local", "state"), PATH: "/nonexistent" } };
  }

  pointerPath(m: Machine, agent: string, key: string | undefined = "thread-1"): string {
    return resolvePointerPath({ env: m.env, agent, cwd: m.cwd, home: m.home, key });
  }

  /** A confirmed pointer on machine `m` for `agent`'s session `id`. */
  pin(m: Machine, agent: string, id: string, key: string | undefined = "thread-1"): string {
    const path = this.pointerPath(m, agent, key);
    mkdirSync(dirname(path), { recursive: true });
    const pointer = { version: 1, agent, id, state: "confirmed", cwd: m.cwd, capturedAt: "2026-11-29T03:50:31.000Z", source: { rule: "chosen-up-front" }, ...(key === undefined ? {} : { key }), history: [] };
    writeFileSync(path, `${JSON.stringify(pointer, null, 2)}\n`);
    return path;
  }

  /** Claude's transcript of `id` for folder `m.cwd`, with `turns` lines. */
  claudeTranscript(m: Machine, id = CLAUDE_ID, turns = 2): string {
    const path = join(m.home, ".claude", "projects", m.cwd.replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, claudeLines(m.cwd, turns));
    return path;
  }

  async export(agent: AgentPlugin = agents.claude, key: string | undefined = "thread-1"): Promise<void> {
    await exportSession({ pointerPath: this.pointerPath(this.a, agent.name, key), plugin: agent, out: this.archive, env: this.a.env, sessionpinVersion: "0.1.0-test", now: new Date("2026-11-29T04:00:00Z") });
  }

  import(file = this.archive, m: Machine = this.b): Promise<ImportResult> {
    return importSession({ file, cwd: m.cwd, env: m.env, user: [], pointerPath: (agent, key) => resolvePointerPath({ env: m.env, agent, cwd: m.cwd, home: m.home, key }) });
  }

  /** Everything below the temp folder but the archives: path → what is there (a file's sha256, a link's target). */
  tree(): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const stat = lstatSync(path);
        const rel = path.slice(this.dir.length + 1);
        if (dir === this.dir && name.endsWith(".tgz")) continue;
        if (stat.isSymbolicLink()) out[rel] = `link ${readlinkSync(path)}`;
        else if (stat.isDirectory()) {
          out[rel] = "folder";
          walk(path);
        } else out[rel] = createHash("sha256").update(readFileSync(path)).digest("hex");
      }
    };
    walk(this.dir);
    return out;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Machine A's Claude session, pinned and exported to `archive`: the archive's entries, to build others from. */
  async exportedClaude(): Promise<RawEntry[]> {
    this.claudeTranscript(this.a);
    this.pin(this.a, "claude", CLAUDE_ID);
    await this.export();
    return entriesOf(this.archive);
  }
}

/** Before each test of a file: two machines and the entries of A's exported Claude session (exportedClaude); cleaned up after. */
export function exportedClaudeEachTest(take: (m: TwoMachines, good: RawEntry[]) => void): void {
  let m: TwoMachines | undefined;
  beforeEach(async () => {
    m = new TwoMachines();
    take(m, await m.exportedClaude());
  });
  afterEach(() => m?.cleanup());
}

/** Claude-like transcript lines naming `cwd`. */
export function claudeLines(cwd: string, turns: number): string {
  return Array.from({ length: turns }, (_, i) => `${JSON.stringify({ type: i % 2 === 0 ? "user" : "assistant", cwd, n: i, text: `turn ${i}` })}\n`).join("");
}

/** One entry of a hand-made archive: its name, its bytes, and optionally another type, a claimed size or a link target. */
export interface RawEntry {
  readonly name: string;
  readonly body?: Buffer | string;
  readonly type?: "File" | "SymbolicLink" | "Link" | "Directory" | "FIFO";
  readonly claimed?: number;
  readonly linkpath?: string;
}

/** A tar (gzipped unless `plain`) of `entries`, each header made by the tar library, bodies padded to 512. */
export function tarOf(entries: readonly RawEntry[], o: { plain?: boolean; end?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? "");
    const block = Buffer.alloc(512);
    new Header({ path: entry.name, size: entry.claimed ?? body.length, type: entry.type ?? "File", mode: 0o600, mtime: new Date(0), ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }) }).encode(block);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  if (o.end !== false) blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return o.plain === true ? tar : gzipSync(tar);
}

/** The entries of a gzipped tar as [name, body] (regular files only), to rebuild a real archive with one thing changed. */
export async function entriesOf(archive: string): Promise<RawEntry[]> {
  const { Parser } = await import("tar");
  const out: RawEntry[] = [];
  const parser = new Parser({
    onReadEntry(entry) {
      const chunks: Buffer[] = [];
      entry.on("data", (c: Buffer) => chunks.push(c));
      entry.on("end", () => out.push({ name: entry.path, body: Buffer.concat(chunks) }));
    },
  });
  parser.end(gunzipSync(readFileSync(archive)));
  return out;
}

/** The manifest of a rebuilt archive, changed by `change`, its entries' sha256 and sizes kept in step with `bodies`. */
export function withManifest(entries: readonly RawEntry[], change: (manifest: Record<string, unknown>) => void): RawEntry[] {
  const [first, ...rest] = entries;
  const manifest = JSON.parse(String(first?.body)) as Record<string, unknown>;
  change(manifest);
  return [{ name: "manifest.json", body: JSON.stringify(manifest) }, ...rest];
}
