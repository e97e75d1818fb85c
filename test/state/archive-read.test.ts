import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CarryError, refused } from "../../src/state/archive-rules.js";
import { scanArchive, type ScanHandler } from "../../src/state/archive-read.js";
import { CLAUDE_ID, exportedClaudeEachTest, tarOf, type TwoMachines, type RawEntry } from "./carry-support.js";

/**
 * scanArchive on its own: what its handler is told, in which order, and how the archive the user
 * names is opened. The archives built to hurt are refused through `import` in archive-hostile.test.ts.
 */
let m: TwoMachines;
let good: RawEntry[];

exportedClaudeEachTest((made, entries) => {
  m = made;
  good = entries;
});

/** A handler that writes down what it is told, and takes the bytes of the entries `taking` names. */
function recording(taking: (path: string) => boolean = () => true): { handler: ScanHandler; told: string[]; bodies: Map<string, Buffer> } {
  const told: string[] = [];
  const bodies = new Map<string, Buffer>();
  const handler: ScanHandler = {
    manifest: (manifest) => void told.push(`manifest ${manifest.entries.length}`),
    entry(entry) {
      told.push(`entry ${entry.path}`);
      if (!taking(entry.path)) return undefined;
      const chunks: Buffer[] = [];
      return {
        data: (chunk) => void chunks.push(Buffer.from(chunk)),
        end() {
          told.push(`end ${entry.path}`);
          bodies.set(entry.path, Buffer.concat(chunks));
        },
      };
    },
  };
  return { handler, told, bodies };
}

const transcript = `store/${CLAUDE_ID}.jsonl`;

/** The exported archive with one byte of its transcript changed, its manifest as it was. */
function altered(): string {
  const path = join(m.dir, "altered.tgz");
  writeFileSync(path, tarOf(good.map((e) => (e.name === transcript ? { ...e, body: String(e.body).replace("turn 1", "turn 7") } : e))));
  return path;
}

async function refusal(file: string, handler: ScanHandler = recording().handler): Promise<{ exitCode: number; message: string }> {
  const error = await scanArchive(file, handler).then(() => undefined, (e: unknown) => e);
  if (!(error instanceof CarryError)) throw new Error(`not refused: ${String(error)}`);
  return { exitCode: error.exitCode, message: error.message };
}

describe("scanArchive", () => {
  it("tells the handler the manifest first, then hands it each entry's bytes, each ended once whole and checked", async () => {
    const { handler, told, bodies } = recording();
    const manifest = await scanArchive(m.archive, handler);
    const listed = manifest.entries.map((e) => e.path);
    expect(listed).toEqual(good.slice(1).map((e) => e.name));
    expect(told).toEqual([`manifest ${listed.length}`, ...listed.flatMap((path) => [`entry ${path}`, `end ${path}`])]);
    for (const entry of good.slice(1)) expect(bodies.get(entry.name), entry.name).toEqual(Buffer.from(entry.body ?? ""));
  });

  it("checks the entries whose bytes the handler does not take", async () => {
    const { handler, told } = recording(() => false);
    await scanArchive(m.archive, handler);
    expect(told.filter((line) => line.startsWith("end"))).toEqual([]);
    expect((await refusal(altered(), recording(() => false).handler)).message).toBe(`"${transcript}" does not match its sha256 in the manifest (altered or damaged)`);
  });

  it("never ends an entry whose bytes are not the manifest's, though it had them", async () => {
    const { handler, told } = recording();
    expect((await refusal(altered(), handler)).exitCode).toBe(3);
    expect(told).toContain(`entry ${transcript}`);
    expect(told).not.toContain(`end ${transcript}`);
  });

  it("stops at a manifest its handler refuses, before any entry", async () => {
    const { handler, told } = recording();
    handler.manifest = () => {
      throw refused("an agent this sessionpin does not know");
    };
    expect(await refusal(m.archive, handler)).toEqual({ exitCode: 3, message: "an agent this sessionpin does not know" });
    expect(told).toEqual([]);
  });

  it("opens the archive named, through a link, and refuses a missing file, a folder or a FIFO at once", async () => {
    symlinkSync(m.archive, join(m.dir, "linked.tgz"));
    expect((await scanArchive(join(m.dir, "linked.tgz"), recording().handler)).session).toBe(CLAUDE_ID);
    const missing = await refusal(join(m.dir, "missing.tgz"));
    expect(missing.exitCode).toBe(1);
    expect(missing.message).toMatch(/^cannot read it: /);
    mkdirSync(join(m.dir, "folder.tgz"));
    expect(await refusal(join(m.dir, "folder.tgz"))).toEqual({ exitCode: 3, message: "not a regular file" });
    execFileSync("mkfifo", [join(m.dir, "fifo.tgz")]);
    const started = Date.now();
    expect(await refusal(join(m.dir, "fifo.tgz"))).toEqual({ exitCode: 3, message: "not a regular file" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
