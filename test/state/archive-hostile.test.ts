import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CarryError } from "../../src/state/archive-rules.js";
import { CLAUDE_ID, exportedClaudeEachTest, tarOf, type TwoMachines, withManifest, type RawEntry } from "./carry-support.js";

/**
 * Archives built to hurt: each is refused by `import` in one line, with exit code 3, and nothing is
 * written anywhere (the trees of both HOMEs, both folders and their state folders are as before,
 * and so is /etc, which one archive points a link at).
 */

const TRANSCRIPT = `store/${CLAUDE_ID}.jsonl`;
let m: TwoMachines;
let good: RawEntry[];

exportedClaudeEachTest((made, entries) => {
  m = made;
  good = entries;
});

/** The archive's entries with the one named `name` replaced by `by` (or left out). */
const replacing = (name: string, ...by: RawEntry[]): RawEntry[] => good.flatMap((e) => (e.name === name ? by : [e]));
const body = (name: string): Buffer => Buffer.from(good.find((e) => e.name === name)?.body ?? "");

const cases: ReadonlyArray<readonly [string, () => Buffer, RegExp]> = [
  ["truncated gzip", () => gzipSync(gunzipSync(tarOf(good))).subarray(0, 300), /cut short/],
  ["truncated inside a file", () => {
    const raw = gunzipSync(tarOf(good));
    return gzipSync(raw.subarray(0, raw.indexOf('"turn 1"') + 5));
  }, /it is cut short \(truncated tar data\)/],
  ["truncated inside a header", () => {
    const raw = gunzipSync(tarOf(good));
    return gzipSync(raw.subarray(0, raw.lastIndexOf(`store/${CLAUDE_ID}.jsonl`) + 40));
  }, /it is cut short: 1 of the files its manifest lists are missing/],
  ["truncated after a whole file (a clean end, files missing)", () => tarOf(good.slice(0, 2)), /cut short: 1 of the files its manifest lists are missing/],
  ["tampered with (one byte of the transcript changed)", () => tarOf(replacing(TRANSCRIPT, { name: TRANSCRIPT, body: body(TRANSCRIPT).toString().replace("turn 1", "turn 7") })), /does not match its sha256 in the manifest/],
  ["from a newer format", () => tarOf(withManifest(good, (manifest) => void (manifest["version"] = 2))), /written by a newer sessionpin \(archive format 2; this one reads 1\)/],
  ["for an unknown agent", () => tarOf(withManifest(good, (manifest) => void (manifest["agent"] = { name: "nosuch", version: null }))), /"nosuch", an agent this sessionpin does not know/],
  ["a `..` in a listed path", () => tarOf(withManifest(good, (manifest) => {
    (manifest["entries"] as Array<{ path: string }>)[1]!.path = "store/../../../escape.jsonl";
  }).map((e) => (e.name === TRANSCRIPT ? { ...e, name: "store/../../../escape.jsonl" } : e))), /a `\.\.` in its path/],
  ["a `..` in an entry the manifest does not list", () => tarOf([...good, { name: "store/../../evil.sh", body: "#!/bin/sh\n" }]), /a `\.\.` in its path/],
  ["an absolute path", () => tarOf([...good.slice(0, 2), { name: "/tmp/sessionpin-evil", body: "x" }, ...good.slice(2)]), /an absolute path/],
  ["a symbolic link to /etc", () => tarOf(replacing(TRANSCRIPT, { name: TRANSCRIPT, type: "SymbolicLink", linkpath: "/etc" })), /a symbolic link \(to "\/etc"\), not a regular file/],
  ["a hard link to /etc/passwd", () => tarOf(replacing(TRANSCRIPT, { name: TRANSCRIPT, type: "Link", linkpath: "/etc/passwd" })), /a hard link, not a regular file/],
  ["a folder entry", () => tarOf([...good.slice(0, 2), { name: "store/sub/", type: "Directory" }, ...good.slice(2)]), /a folder, not a regular file/],
  ["a FIFO", () => tarOf([...good.slice(0, 2), { name: "store/fifo", type: "FIFO" }]), /a FIFO entry, not a regular file/],
  ["a header claiming 10 GB", () => tarOf(replacing(TRANSCRIPT, { name: TRANSCRIPT, claimed: 10 * 1024 ** 3, body: "x" }), { end: false }), /claims 10737418240 bytes, more than a file of an archive may hold/],
  ["a size other than the manifest's", () => tarOf(replacing(TRANSCRIPT, { name: TRANSCRIPT, body: `${body(TRANSCRIPT).toString()}{}\n` })), /holds \d+ bytes, its manifest says \d+/],
  ["the transcript twice", () => tarOf([...good, good[2] as RawEntry]), /it holds "store\/.*\.jsonl" twice/],
  ["the manifest twice", () => tarOf([...good, good[0] as RawEntry]), /it holds manifest\.json twice/],
  ["a path listed twice", () => tarOf(withManifest(good, (manifest) => {
    const entries = manifest["entries"] as unknown[];
    entries.push(entries[1]);
  })), /its manifest lists "store\/.*\.jsonl" twice/],
  ["an entry the manifest does not list", () => tarOf([...good, { name: "store/extra.jsonl", body: "{}\n" }]), /"store\/extra\.jsonl" is not in its manifest/],
  ["a file of another session", () => tarOf(withManifest(good, (manifest) => {
    (manifest["entries"] as Array<{ path: string }>)[1]!.path = "store/0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e.jsonl";
  }).map((e) => (e.name === TRANSCRIPT ? { ...e, name: "store/0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e.jsonl" } : e))), /is no file of claude session/],
  ["the manifest not first", () => tarOf([good[1] as RawEntry, good[0] as RawEntry, ...good.slice(2)]), /its first entry is "pointer\.json", not manifest\.json/],
  ["no gzip at all", () => tarOf(good, { plain: true }), /no gzip file|damaged/],
  ["an empty file", () => Buffer.alloc(0), /no manifest|cut short/],
  ["a gzip bomb (50 MB of zeros after the end)", () => gzipSync(Buffer.concat([gunzipSync(tarOf(good)), Buffer.alloc(50 * 1024 * 1024)])), /unpacks to more than its manifest accounts for/],
  ["another program's manifest", () => tarOf([{ name: "manifest.json", body: '{"name":"something else"}' }]), /not a sessionpin archive/],
];

describe("hostile archives are refused in one line, with nothing written anywhere", () => {
  for (const [what, make, said] of cases) {
    it(what, async () => {
      const file = join(m.dir, "hostile.tgz");
      writeFileSync(file, make());
      const before = m.tree();
      const etc = statSync("/etc").mtimeMs;
      const started = Date.now();
      const error = await m.import(file).then(() => undefined, (e: unknown) => e);
      expect(error, what).toBeInstanceOf(CarryError);
      expect((error as CarryError).exitCode).toBe(3);
      expect((error as CarryError).message).toMatch(said);
      expect((error as CarryError).message).not.toContain("\n");
      expect(m.tree()).toEqual(before);
      expect(statSync("/etc").mtimeMs).toBe(etc);
      expect(Date.now() - started, "refused at once, never reading a claimed body").toBeLessThan(5_000);
    });
  }

  it("an archive whose pointer names another session than its manifest", async () => {
    const pointer = JSON.parse(body("pointer.json").toString()) as Record<string, unknown>;
    pointer["id"] = "0b5e8d1c-2f3a-4b6c-8d9e-0f1a2b3c4d5e";
    const text = `${JSON.stringify(pointer)}\n`;
    const { createHash } = await import("node:crypto");
    const entries = withManifest(replacing("pointer.json", { name: "pointer.json", body: text }), (manifest) => {
      const listed = (manifest["entries"] as Array<{ path: string; size: number; sha256: string }>)[0]!;
      listed.size = Buffer.byteLength(text);
      listed.sha256 = createHash("sha256").update(text).digest("hex");
    });
    const file = join(m.dir, "hostile.tgz");
    writeFileSync(file, tarOf(entries));
    const before = m.tree();
    await expect(m.import(file)).rejects.toThrow(/its pointer names another agent, session or folder than its manifest/);
    expect(m.tree()).toEqual(before);
  });
});
