import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { carriedProject, projectOf, readConfig, registryOf } from "../../src/agents/gemini-projects.js";
import { storeLook } from "../../src/state/store-look.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A ~/.gemini of real files (paths relative to it, with their text), as Gemini CLI 0.61 leaves it. */
function gemini(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "sessionpin-gemini-"));
  made.push(dir);
  const root = join(dir, ".gemini");
  mkdirSync(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const registry = (projects: unknown): string => JSON.stringify({ projects });

describe("Gemini's project for a folder, as 0.61 would give it", () => {
  it("its projects.json entry, whose marker does not name another folder", () => {
    const home = gemini({ "projects.json": registry({ "/w/app": "app-2" }) });
    expect(carriedProject(home, "/w/app", storeLook)).toBe("app-2");
  });
  it("else the folder whose marker names it", () => {
    const home = gemini({ "tmp/odd/.project_root": "/w/app\n" });
    expect(carriedProject(home, "/w/app", storeLook)).toBe("odd");
  });
  it("else the first free slug: not in projects.json, no marker of another folder", () => {
    const home = gemini({ "projects.json": registry({ "/x/app": "app" }), "tmp/app-1/.project_root": "/y/app" });
    expect(carriedProject(home, "/w/App", storeLook)).toBe("app-2");
    expect(carriedProject(gemini(), "/w/new", storeLook)).toBe("new");
  });
  it("not an entry whose folder's marker names another folder, nor a slug made of nothing", () => {
    const home = gemini({ "projects.json": registry({ "/w/app": "app" }), "tmp/app/.project_root": "/elsewhere/app" });
    expect(carriedProject(home, "/w/app", storeLook)).toBe("app-1");
    expect(carriedProject(gemini(), "/w/@@@", storeLook)).toBe("project");
  });
});

describe("registryOf", () => {
  it("is empty before the first run, and the projects 0.61 keeps after it", () => {
    expect(registryOf(gemini(), storeLook)).toEqual({});
    expect(registryOf(gemini({ "projects.json": registry({ "/w/a": "a", "/w/b": "b-1" }) }), storeLook)).toEqual({ "/w/a": "a", "/w/b": "b-1" });
  });

  it("is no registry when projects.json is not JSON, has no projects, or names a slug 0.61 would not write", () => {
    for (const text of ["{", "null", JSON.stringify({ other: 1 }), registry({ "/w/a": "../up" }), registry({ "/w/a": 7 }), registry({ "/w/a": "A" })]) {
      expect(registryOf(gemini({ "projects.json": text }), storeLook), text).toBeUndefined();
    }
    // Nor a folder in its place.
    expect(registryOf(gemini({ "projects.json/x": "" }), storeLook)).toEqual({});
  });
});

describe("projectOf, read before the agent starts", () => {
  it("takes the folder's projects.json entry, else the slug it would claim", () => {
    const home = gemini({ "projects.json": registry({ "/w/app": "app-3" }) });
    expect(projectOf(home, "/w/app")).toBe("app-3");
    expect(projectOf(home, "/w/My Project!")).toBe("my-project");
    expect(projectOf(gemini(), "/")).toBe("project");
  });

  it("never takes an entry that would lead out of tmp/", () => {
    for (const slug of ["..", "a/b", "", 5]) {
      expect(projectOf(gemini({ "projects.json": registry({ "/w/app": slug }) }), "/w/app"), String(slug)).toBe("app");
    }
  });

  it("reads no FIFO and no device where projects.json goes: the start is not held, memory not filled", () => {
    const fifo = gemini();
    execFileSync("mkfifo", [join(fifo, "projects.json")]);
    expect(projectOf(fifo, "/w/app")).toBe("app");
    const device = gemini();
    symlinkSync("/dev/zero", join(device, "projects.json"));
    expect(projectOf(device, "/w/app")).toBe("app");
  });
});

describe("readConfig", () => {
  it("reads a JSON object, through a link as dotfiles often are, and nothing else", () => {
    const home = gemini({ "settings.json": JSON.stringify({ general: { a: 1 } }), "list.json": "[1]", "bad.json": "{" });
    symlinkSync(join(home, "settings.json"), join(home, "linked.json"));
    expect(readConfig(join(home, "settings.json"))).toEqual({ general: { a: 1 } });
    expect(readConfig(join(home, "linked.json"))).toEqual({ general: { a: 1 } });
    expect(readConfig(join(home, "list.json"))).toBeUndefined();
    expect(readConfig(join(home, "bad.json"))).toBeUndefined();
    expect(readConfig(join(home, "missing.json"))).toBeUndefined();
  });
});
