import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CarryError } from "../../src/state/archive-rules.js";
import { checkPlace, replaceSmallFile, StagedFile } from "../../src/state/carry-place.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();

/** The CarryError `run` throws: its exit code and message. */
function refusal(run: () => unknown): { exitCode: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof CarryError) return { exitCode: error.exitCode, message: error.message };
    throw error;
  }
  throw new Error("not refused");
}

/** Every entry below `dir`, as paths below it, sorted. */
const tree = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();

describe("checkPlace", () => {
  it("says what is where a file of the session goes: nothing yet, or a regular file", () => {
    const root = join(tmp.path, "projects");
    expect(checkPlace(root, join(root, "a", "b", "s.jsonl"))).toBe("none");
    mkdirSync(join(root, "a"), { recursive: true });
    expect(checkPlace(root, join(root, "a", "b", "s.jsonl"))).toBe("none");
    writeFileSync(join(root, "a", "s.jsonl"), "{}\n");
    expect(checkPlace(root, join(root, "a", "s.jsonl"))).toBe("file");
  });

  it("follows a link above the root, as every run does, but none from the root down", () => {
    const real = join(tmp.path, "disk", "projects");
    mkdirSync(real, { recursive: true });
    symlinkSync(join(tmp.path, "disk"), join(tmp.path, "home"));
    const root = join(tmp.path, "home", "projects");
    expect(checkPlace(root, join(root, "s.jsonl"))).toBe("none");
    mkdirSync(join(tmp.path, "elsewhere"));
    symlinkSync(join(tmp.path, "elsewhere"), join(real, "linked"));
    expect(refusal(() => checkPlace(root, join(root, "linked", "s.jsonl")))).toEqual({
      exitCode: 3,
      message: `${join(root, "linked")} is a link or no folder where a folder of the session goes (links are never followed)`,
    });
  });

  it("refuses a file where a folder goes, and a folder, link or FIFO where a file goes", () => {
    const root = join(tmp.path, "projects");
    mkdirSync(join(root, "folder", "s.jsonl"), { recursive: true });
    writeFileSync(join(root, "file"), "");
    symlinkSync(join(root, "file"), join(root, "link.jsonl"));
    execFileSync("mkfifo", [join(root, "fifo.jsonl")]);
    expect(refusal(() => checkPlace(root, join(root, "file", "s.jsonl"))).message).toBe(`${join(root, "file")} is a file where a folder of the session goes (links are never followed)`);
    expect(refusal(() => checkPlace(root, join(root, "folder", "s.jsonl"))).message).toBe(`${join(root, "folder", "s.jsonl")} is a folder where a file of the session goes (links are never followed)`);
    expect(refusal(() => checkPlace(root, join(root, "link.jsonl"))).message).toMatch(/link\.jsonl is a link or no regular file where a file/);
    expect(refusal(() => checkPlace(root, join(root, "fifo.jsonl"))).exitCode).toBe(3);
  });
});

describe("StagedFile", () => {
  it("writes under a temp name in private folders and shows the file only once committed", () => {
    const root = join(tmp.path, "projects");
    const path = join(root, "-w-app", "s.jsonl");
    const staged = new StagedFile(root, path);
    staged.write(Buffer.from("one\n"));
    staged.write(Buffer.from("two\n"));
    expect(staged.bytes).toBe(8);
    expect(tree(root)).toEqual(["-w-app", join("-w-app", staged.temp.split("/").at(-1) as string)]);
    expect(statSync(join(root, "-w-app")).mode & 0o777).toBe(0o700);
    expect(statSync(staged.temp).mode & 0o777).toBe(0o600);
    staged.commit();
    expect(readFileSync(path, "utf8")).toBe("one\ntwo\n");
    expect(tree(root)).toEqual(["-w-app", join("-w-app", "s.jsonl")]);
  });

  it("replaces a regular file on commit, and leaves nothing behind when discarded", () => {
    const root = join(tmp.path, "projects");
    mkdirSync(root);
    writeFileSync(join(root, "s.jsonl"), "old\n");
    const replacing = new StagedFile(root, join(root, "s.jsonl"));
    replacing.write(Buffer.from("new\n"));
    replacing.commit();
    expect(readFileSync(join(root, "s.jsonl"), "utf8")).toBe("new\n");
    const dropped = new StagedFile(root, join(root, "t.jsonl"));
    dropped.write(Buffer.from("x"));
    dropped.discard();
    dropped.discard();
    expect(tree(root)).toEqual(["s.jsonl"]);
  });

  it("does not commit over a link that took the file's place while it was written", () => {
    const root = join(tmp.path, "projects");
    const path = join(root, "s.jsonl");
    const staged = new StagedFile(root, path);
    writeFileSync(join(tmp.path, "target"), "kept\n");
    symlinkSync(join(tmp.path, "target"), path);
    expect(refusal(() => staged.commit()).exitCode).toBe(3);
    expect(readFileSync(join(tmp.path, "target"), "utf8")).toBe("kept\n");
    staged.discard();
  });

  it("does not make a folder through a link that stands where one goes", () => {
    const root = join(tmp.path, "projects");
    mkdirSync(root);
    mkdirSync(join(tmp.path, "elsewhere"));
    symlinkSync(join(tmp.path, "elsewhere"), join(root, "sub"));
    expect(refusal(() => new StagedFile(root, join(root, "sub", "s.jsonl"))).message).toBe(`${join(root, "sub")} became a link or a file while the import ran: stopped`);
    expect(readdirSync(join(tmp.path, "elsewhere"))).toEqual([]);
  });
});

describe("replaceSmallFile", () => {
  it("replaces the file whole, making its folder, and leaves no temp file", () => {
    const path = join(tmp.path, "gemini", "projects.json");
    replaceSmallFile(path, '{"projects":{}}\n');
    replaceSmallFile(path, '{"projects":{"/w":"w"}}\n');
    expect(readFileSync(path, "utf8")).toBe('{"projects":{"/w":"w"}}\n');
    expect(readdirSync(join(tmp.path, "gemini"))).toEqual(["projects.json"]);
  });

  it("leaves a folder or a link where the file goes as it is", () => {
    const folder = join(tmp.path, "projects.json");
    mkdirSync(folder);
    expect(refusal(() => replaceSmallFile(folder, "{}")).message).toBe(`${folder} is no regular file: left as it is`);
    writeFileSync(join(tmp.path, "target"), "kept");
    const link = join(tmp.path, "link.json");
    symlinkSync(join(tmp.path, "target"), link);
    expect(refusal(() => replaceSmallFile(link, "{}")).exitCode).toBe(3);
    expect(readFileSync(join(tmp.path, "target"), "utf8")).toBe("kept");
    expect(readdirSync(tmp.path).sort()).toEqual(["link.json", "projects.json", "target"]);
  });
});
