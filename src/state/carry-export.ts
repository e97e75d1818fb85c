import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import type { AgentPlugin, RunContext } from "../agents/types.js";
import { lockCheck, lockHolder } from "../doctor/checks.js";
import { lookUpSession } from "../engine/store-lookup.js";
import { reasonOf } from "../errors.js";
import { storeHome } from "../home.js";
import { tempPathFor } from "../pointer/atomic.js";
import { describeHolder } from "../pointer/holder.js";
import type { Pointer } from "../pointer/schema.js";
import { readPointer } from "../pointer/store.js";
import type { Manifest, ManifestEntry } from "./archive-manifest.js";
import { badName, CARRY_FORMAT, CARRY_KIND, CarryError, MANIFEST_NAME, MAX_FILE_BYTES, POINTER_NAME, refused, STORE_PREFIX } from "./archive-rules.js";
import { agentVersion, firstLine, runAgentCommand } from "./carry-command.js";
import { recallEntry } from "./store-index.js";
import { storeLook } from "./store-look.js";

export interface ExportRequest {
  readonly pointerPath: string;
  readonly plugin: AgentPlugin;
  readonly out: string;
  readonly env: NodeJS.ProcessEnv;
  readonly sessionpinVersion: string;
  readonly now: Date;
}

export interface ExportResult {
  readonly archive: string;
  readonly bytes: number;
  readonly manifest: Manifest;
  /** Where each file of the archive came from on this machine. */
  readonly sources: ReadonlyArray<{ readonly entry: string; readonly from: string; readonly size: number }>;
  readonly pointer: Pointer;
}

/**
 * `sessionpin export`: the pointer at `pointerPath` and its session's own files (or the agent's
 * own export of it) into one archive at `out`, with a manifest of the agent, its version, the
 * session's folder and each file's size and sha256. The files are copied aside first and packed
 * from there, so each one's sha256 is of the very bytes packed, while the agent may write on.
 */
export async function exportSession(request: ExportRequest): Promise<ExportResult> {
  const { plugin, env } = request;
  const read = await readPointer(request.pointerPath);
  if (read.kind !== "ok") {
    const why = read.kind === "missing" ? "no pointer there" : read.kind === "newer" ? `written by a newer sessionpin (version ${read.version})` : `unreadable: ${read.reason}`;
    throw new CarryError(1, `${request.pointerPath}: ${why}`);
  }
  const pointer = read.pointer;
  if (pointer.agent !== plugin.name) throw refused(`${request.pointerPath} is ${pointer.agent}'s pointer, not ${plugin.name}'s`);
  const holder = lockHolder(await lockCheck(request.pointerPath));
  if (holder !== undefined) throw new CarryError(75, `${request.pointerPath} is held by ${describeHolder(holder)}, which may be writing the session: export it once that run ends`);
  const carry = plugin.carry;
  if (carry === undefined || carry.kind === "none") throw refused(`${plugin.name}'s sessions cannot be carried: ${carry?.says ?? "its plugin says nothing about carrying them"}`);

  const context: RunContext = { home: storeHome(env), cwd: pointer.cwd, env };
  const stage = mkdtempSync(join(tmpdir(), "sessionpin-export-"));
  try {
    const executable = plugin.names[0] ?? plugin.name;
    const version = carry.kind === "pointer" ? Promise.resolve(null) : agentVersion(executable, folderOr(pointer.cwd, context.home), env);
    const entries: ManifestEntry[] = [];
    const sources: Array<{ entry: string; from: string; size: number }> = [];
    const pointerText = Buffer.from(`${JSON.stringify(pointer, null, 2)}\n`);
    writeFileSync(join(stage, POINTER_NAME), pointerText, { mode: 0o600 });
    entries.push({ path: POINTER_NAME, role: "pointer", size: pointerText.length, sha256: sha256(pointerText) });
    sources.push({ entry: POINTER_NAME, from: request.pointerPath, size: pointerText.length });

    if (carry.kind === "files") {
      const found = await lookUpSession(plugin, pointer.id, [], context, request.now, { capturedAt: new Date(pointer.capturedAt), remembered: () => recallEntry(context, plugin.name, pointer.id) });
      if (found.kind !== "there") throw new CarryError(1, `${plugin.name} session ${pointer.id} is not in ${plugin.name}'s store on this machine${found.kind === "gone" ? ` (looked in ${found.looked.join(", ")})` : ""}: nothing to carry`);
      const root = carry.root(context, storeLook);
      const entry = relative(root, found.path);
      if (entry === "" || entry.startsWith("..") || isAbsolute(entry)) throw new CarryError(1, `${found.path} is not below ${root}, where ${plugin.name} keeps this folder's sessions`);
      const files = carry.files(pointer.id, root, entry.split(sep).join("/"), storeLook);
      for (const file of files) {
        const name = `${STORE_PREFIX}${file.path}`;
        const bad = badName(name) ?? (carry.owns(file.path, pointer.id) ? undefined : "not a file of this session");
        if (bad !== undefined) throw new CarryError(1, `${join(root, file.path)}: ${bad}`);
        const copied = copyRegularFile(join(root, ...file.path.split("/")), join(stage, ...name.split("/")));
        if (copied === undefined) continue; // gone meanwhile (a stub Gemini removed): not part of the session any more
        entries.push({ path: name, role: file.transcript === true ? "transcript" : "file", ...copied });
        sources.push({ entry: name, from: join(root, file.path), size: copied.size });
      }
      if (!entries.some((e) => e.role === "transcript")) throw new CarryError(1, `${plugin.name} session ${pointer.id}: its transcript is gone from ${root}`);
    } else if (carry.kind === "command") {
      const args = carry.exportArgs(pointer.id);
      const result = await runAgentCommand(executable, args, { cwd: folderOr(pointer.cwd, context.home), env, timeoutMs: 120_000, maxBytes: MAX_FILE_BYTES });
      const said = `${result.stdout.toString("utf8")}\n${result.stderr}`;
      if (result.code !== 0) throw new CarryError(1, `\`${executable} ${args.join(" ")}\` failed (exit ${result.code}): ${carry.missing.test(said) ? `${plugin.name} has no session ${pointer.id} here` : firstLine(result.stderr) || "no reason given"}`);
      if (carry.turns(result.stdout.toString("utf8")) === undefined) throw new CarryError(1, `\`${executable} ${args.join(" ")}\` printed no session ${plugin.name} can import`);
      const name = `${STORE_PREFIX}session.json`;
      mkdirSync(join(stage, "store"), { mode: 0o700 });
      writeFileSync(join(stage, "store", "session.json"), result.stdout, { mode: 0o600 });
      entries.push({ path: name, role: "transcript", size: result.stdout.length, sha256: sha256(result.stdout) });
      sources.push({ entry: name, from: `${executable} ${args.join(" ")}`, size: result.stdout.length });
    }

    const manifest: Manifest = {
      format: CARRY_KIND,
      version: CARRY_FORMAT,
      createdAt: request.now.toISOString(),
      sessionpin: request.sessionpinVersion,
      agent: { name: plugin.name, version: await version },
      session: pointer.id,
      cwd: pointer.cwd,
      carry: carry.kind,
      entries,
    };
    writeFileSync(join(stage, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const bytes = await pack(stage, [MANIFEST_NAME, ...entries.map((e) => e.path)], request.out);
    return { archive: request.out, bytes, manifest, sources, pointer };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The gzipped tar of `names` (in that order) from `stage`, written beside `out` and renamed onto it. */
async function pack(stage: string, names: readonly string[], out: string): Promise<number> {
  const { create } = await import("tar");
  const temp = tempPathFor(out);
  try {
    // portable: no owner, group or device numbers of this machine in the headers.
    await create({ gzip: true, cwd: stage, portable: true, strict: true, file: temp }, [...names]);
    renameSync(temp, out);
    return statSync(out).size;
  } catch (error) {
    rmSync(temp, { force: true });
    throw new CarryError(1, `cannot write ${out}: ${reasonOf(error)}`, { cause: error });
  }
}

/**
 * A copy of regular file `from` at `to` (its folders made), never through a link, with its size
 * and sha256; undefined when it is not there. A file past MAX_FILE_BYTES is refused.
 */
function copyRegularFile(from: string, to: string): { size: number; sha256: string } | undefined {
  let source: number;
  try {
    source = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CarryError(1, `cannot read ${from}: ${reasonOf(error)}`, { cause: error });
  }
  try {
    if (!fstatSync(source).isFile()) throw new CarryError(1, `${from} is not a regular file`);
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    const target = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    const hash = createHash("sha256");
    const buffer = Buffer.alloc(1 << 20);
    let size = 0;
    try {
      for (let n = readSync(source, buffer); n > 0; n = readSync(source, buffer)) {
        size += n;
        if (size > MAX_FILE_BYTES) throw new CarryError(1, `${from} holds more than ${MAX_FILE_BYTES} bytes, more than an archive takes of one file`);
        hash.update(buffer.subarray(0, n));
        writeFileSync(target, buffer.subarray(0, n));
      }
    } finally {
      closeSync(target);
    }
    return { size, sha256: hash.digest("hex") };
  } finally {
    closeSync(source);
  }
}

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** `folder` when it is one here, else `fallback`: the agent's command needs a folder to run in. */
function folderOr(folder: string, fallback: string): string {
  try {
    return statSync(folder).isDirectory() ? folder : fallback;
  } catch {
    return fallback;
  }
}
