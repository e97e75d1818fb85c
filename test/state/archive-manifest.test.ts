import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseManifest, type Manifest } from "../../src/state/archive-manifest.js";
import { CarryError, MAX_FILE_BYTES } from "../../src/state/archive-rules.js";
import { CLAUDE_ID, entriesOf, TwoMachines } from "./carry-support.js";

/** The manifest `sessionpin export` wrote for a Claude session, as text. */
let written = "";
const machines = new TwoMachines();
beforeAll(async () => {
  machines.claudeTranscript(machines.a);
  machines.pin(machines.a, "claude", CLAUDE_ID);
  await machines.export();
  const [first] = await entriesOf(machines.archive);
  expect(first?.name).toBe("manifest.json");
  written = String(first?.body);
});
afterAll(() => machines.cleanup());

/** The written manifest with `change` made to it, as text. */
function changed(change: (manifest: Record<string, unknown> & { entries: Array<Record<string, unknown>> }) => void): string {
  const manifest = JSON.parse(written) as Record<string, unknown> & { entries: Array<Record<string, unknown>> };
  change(manifest);
  return JSON.stringify(manifest);
}

function refusal(text: string): string {
  try {
    parseManifest(text);
  } catch (error) {
    expect(error).toBeInstanceOf(CarryError);
    expect((error as CarryError).exitCode).toBe(3);
    return (error as CarryError).message;
  }
  throw new Error("the manifest was taken");
}

describe("parseManifest", () => {
  it("takes the manifest export writes", () => {
    const manifest: Manifest = parseManifest(written);
    expect(manifest).toMatchObject({ format: "sessionpin-carry", version: 1, session: CLAUDE_ID, carry: "files", agent: { name: "claude", version: null } });
    expect(manifest.entries.map((e) => [e.path, e.role])).toEqual([["pointer.json", "pointer"], [`store/${CLAUDE_ID}.jsonl`, "transcript"]]);
  });

  it("tells what is no manifest of sessionpin's, and a newer sessionpin's, before judging its fields", () => {
    expect(refusal("{")).toBe("its manifest is not JSON");
    for (const text of ["null", "[]", '"x"', '{"name":"something else"}']) expect(refusal(text), text).toBe("not a sessionpin archive (its manifest is another program's)");
    expect(refusal(changed((m) => void Object.assign(m, { version: 2, carry: "teleport" })))).toBe("written by a newer sessionpin (archive format 2; this one reads 1)");
  });

  it("names the first field the schema refuses", () => {
    expect(refusal(changed((m) => void (m["version"] = 0)))).toMatch(/^its manifest is invalid: field version: /);
    expect(refusal(changed((m) => void (m["cwd"] = "relative/dir")))).toBe("its manifest is invalid: field cwd: expected an absolute path");
    expect(refusal(changed((m) => void (m["extra"] = true)))).toMatch(/^its manifest is invalid: /);
    expect(refusal(changed((m) => void (m.entries[1]!["size"] = MAX_FILE_BYTES + 1)))).toMatch(/^its manifest is invalid: field entries\.1\.size: /);
    expect(refusal(changed((m) => void (m.entries[1]!["sha256"] = "A".repeat(64))))).toMatch(/^its manifest is invalid: field entries\.1\.sha256: /);
  });

  it("refuses names that could leave the folder, a path listed twice, and roles no sessionpin writes", () => {
    expect(refusal(changed((m) => void (m.entries[1]!["path"] = "store/../../x")))).toBe('its manifest lists "store/../../x": a `..` in its path');
    expect(refusal(changed((m) => void m.entries.push({ ...m.entries[1] })))).toBe(`its manifest lists "store/${CLAUDE_ID}.jsonl" twice`);
    expect(refusal(changed((m) => void (m.entries[1]!["path"] = "elsewhere.jsonl")))).toBe('its manifest lists "elsewhere.jsonl" as transcript, which no sessionpin writes');
    expect(refusal(changed((m) => void (m.entries[0]!["role"] = "file")))).toBe('its manifest lists "pointer.json" as file, which no sessionpin writes');
    expect(refusal(changed((m) => void (m.entries[1]!["role"] = "pointer")))).toBe(`its manifest lists "store/${CLAUDE_ID}.jsonl" as pointer, which no sessionpin writes`);
  });

  it("refuses a manifest without its pointer, with files past the total, or with another count of transcripts than its carry has", () => {
    expect(refusal(changed((m) => void m.entries.shift()))).toBe("its manifest lists no pointer");
    expect(refusal(changed((m) => {
      for (let i = 0; i < 5; i++) m.entries.push({ path: `store/big-${i}`, role: "file", size: MAX_FILE_BYTES, sha256: "a".repeat(64) });
    }))).toBe(`its files hold ${5 * MAX_FILE_BYTES + (JSON.parse(written) as Manifest).entries.reduce((sum, e) => sum + e.size, 0)} bytes together, more than ${4 * (1 << 30)}`);
    expect(refusal(changed((m) => void (m.entries[1]!["role"] = "file")))).toBe("its manifest lists 0 transcripts for a session carried as files (expected 1)");
    expect(refusal(changed((m) => void (m["carry"] = "pointer")))).toBe("its manifest lists 1 transcripts for a session carried as pointer (expected 0)");
    // Carried as the pointer alone (Amp): nothing but the pointer.
    expect(parseManifest(changed((m) => Object.assign(m, { carry: "pointer", entries: [m.entries[0]] }))).carry).toBe("pointer");
    expect(refusal(changed((m) => Object.assign(m, { carry: "pointer", entries: [m.entries[0], { ...m.entries[1], role: "file" }] })))).toBe("its manifest lists files besides the pointer (1) for a session carried as its pointer alone");
  });
});
