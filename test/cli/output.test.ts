import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/sandbox.js";

// The CLI's modules are only in dist/bin's bundle: output.ts is bundled on its own here, as esbuild
// bundles it there, so a process of its own can exit and lose its reader as a command does.
let dir = "";
let module = "";
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionpin-output-"));
  module = join(dir, "output.mjs");
  await build({ entryPoints: [join(ROOT, "src/cli/output.ts")], bundle: true, platform: "node", format: "esm", outfile: module, logLevel: "silent" });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A node process that loads output.ts and runs `body` with `endWhenOutputFails` and `exitWhenWritten` in scope. */
const script = (body: string): string[] => [
  "--input-type=module", "-e",
  `import { endWhenOutputFails, exitWhenWritten } from ${JSON.stringify(module)};\n${body}`,
];

// 20 MB: far more than a pipe holds, so most of it is still unwritten when exitWhenWritten is called.
const FLOOD = `const line = "x".repeat(999) + "\\n"; for (let i = 0; i < 20_000; i++) process.stdout.write(line);`;

describe("exitWhenWritten", () => {
  it("exits with its code only once a slow reader has taken all of stdout", async () => {
    const child = spawn(process.execPath, script(`${FLOOD}\nexitWhenWritten(3);`), { stdio: ["ignore", "pipe", "pipe"] });
    let bytes = 0;
    child.stdout.pause();
    // Reads late, as `| grep` on a busy machine does.
    setTimeout(() => child.stdout.on("data", (chunk: Buffer) => void (bytes += chunk.length)).resume(), 300);
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(3);
    expect(bytes).toBe(20_000 * 1_000);
  });
});

describe("endWhenOutputFails", () => {
  it("ends quietly with exit 0 when the reader went away (`| head -1`)", async () => {
    const child = spawn(process.execPath, script(`endWhenOutputFails();\n${FLOOD}\nexitWhenWritten(0);`), { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: "" });
  });

  it.runIf(existsSync("/dev/full"))("says in one line that the output cannot be written, and exits 1 (a full disk)", () => {
    const full = openSync("/dev/full", "w");
    const result = spawnSync(process.execPath, script(`endWhenOutputFails();\nprocess.stdout.write("answer\\n");\nexitWhenWritten(0);`), { stdio: ["ignore", full, "pipe"], encoding: "utf8", timeout: 15_000 });
    expect(result.stderr).toBe("sessionpin: cannot write the output: no space left on the device\n");
    expect(result.status).toBe(1);
  });
});
