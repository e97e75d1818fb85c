import { join } from "node:path";
import { pluginNamed } from "../agents/registry.js";
import type { AgentPlugin, CarryFiles, RunContext } from "../agents/types.js";
import { lockCheck, lockHolder } from "../doctor/checks.js";
import { storeHome } from "../home.js";
import { describeHolder } from "../pointer/holder.js";
import type { Pointer } from "../pointer/schema.js";
import { readPointer, writePointer } from "../pointer/store.js";
import type { Manifest, ManifestEntry } from "./archive-manifest.js";
import { scanArchive, type EntrySink } from "./archive-read.js";
import { CarryError, MAX_FILE_BYTES, POINTER_NAME, refused, STORE_PREFIX } from "./archive-rules.js";
import { checkPlace, replaceSmallFile, StagedFile } from "./carry-place.js";
import { runCommandImport, sessionHere } from "./carry-import-command.js";
import { FolderRewrite, judge, TurnReader, turnsOfFile, type Judgement } from "./carry-turns.js";
import { rememberEntry } from "./store-index.js";
import { storeLook } from "./store-look.js";

export interface ImportRequest {
  readonly file: string;
  /** The folder the session is to resume in, as a run there sees it (a real path). */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly user: readonly AgentPlugin[];
  /** Where the pointer goes for the session's agent and key (run's own rule: options.ts pointerPathFor). */
  pointerPath(agent: string, key: string | undefined): string;
}

/** What happened to the session's own files: written new, put over an older copy, already here, or nothing to write (Amp). */
export type StoreOutcome = "new" | "replaced" | "unchanged" | "none";

export interface ImportResult {
  readonly manifest: Manifest;
  readonly pointer: string;
  readonly pointerWritten: boolean;
  readonly store: StoreOutcome;
  /** The session's files written (or, unchanged, already there) at the new place; the agent's import for OpenCode. */
  readonly files: readonly string[];
  /** The agent's registry files written (Gemini's projects.json and folder marker). */
  readonly registered: readonly string[];
  /** How many turns the archive's transcript holds, and the copy that was here. */
  readonly turns?: { readonly carried: number; readonly here: number };
}

/** What the first reading of the archive learnt, before anything is written. */
interface Plan {
  plugin: AgentPlugin;
  root?: string;
  /** Where each store entry goes. */
  places: Map<string, string>;
  transcript?: ManifestEntry;
  here?: readonly string[];
  carried?: TurnReader;
  pointerBytes: Buffer[];
  document: Buffer[];
  /** A fresh rewrite of the old folder's names into the new folder's, for one file. */
  rewrite(): FolderRewrite;
}

/**
 * `sessionpin import`: checks archive `file` through, then decides, with nothing written yet,
 * whether the session may go here (its agent known, every path its own, no link on the way, no
 * newer copy of the session here, the pointer's place free for it); then reads the archive again
 * and writes its files under their temp names, renames them into place once all are whole, and
 * writes the pointer for this folder last.
 */
export async function importSession(request: ImportRequest): Promise<ImportResult> {
  const context: RunContext = { home: storeHome(request.env), cwd: request.cwd, env: request.env };
  let plan: Plan | undefined;
  const manifest = await scanArchive(request.file, {
    manifest: (m) => void (plan = planFor(m, request, context)),
    entry: (entry) => sinkFor(plan as Plan, entry),
  });
  const p = plan as Plan;
  const carry = p.plugin.carry;
  const pointer = await carriedPointer(Buffer.concat(p.pointerBytes), manifest, request.cwd);
  const pointerPath = request.pointerPath(manifest.agent.name, pointer.key);
  await checkPointerPlace(pointerPath, pointer);

  let judgement: Judgement | undefined;
  if (carry?.kind === "files" && p.here !== undefined) judgement = judged(p.carried?.end(), p.here);
  if (carry?.kind === "command") {
    const here = await sessionHere(p.plugin, carry, manifest.session, context);
    const carried = carry.turns(Buffer.concat(p.document).toString("utf8"));
    if (carried === undefined) throw refused(`its ${manifest.agent.name} session is no document ${manifest.agent.name} can import`);
    if (here !== undefined) judgement = judged(carried, here);
  }
  if (judgement?.kind === "newer-here" || judgement?.kind === "apart") {
    const session = `${manifest.agent.name} session ${manifest.session}`;
    const counts = `it has ${judgement.here} turns, the archive ${judgement.carried}`;
    throw refused(`${judgement.kind === "newer-here" ? `a newer copy of ${session} is here (${counts})` : `a copy of ${session} is here that went its own way from turn ${judgement.from} (${counts})`}: left as it is, nothing written`);
  }
  const store: StoreOutcome = carry?.kind === "pointer" ? "none" : judgement === undefined ? "new" : judgement.kind === "same" ? "unchanged" : "replaced";

  const files = store === "none" ? [] : carry?.kind === "command" ? [`${p.plugin.names[0] ?? p.plugin.name} ${carry.importArgs("<file>").join(" ")}`] : [...p.places.values()];
  if (store === "new" || store === "replaced") {
    if (carry?.kind === "files") await writeFiles(request.file, p, manifest);
    else if (carry?.kind === "command") await runCommandImport(request.file, p.plugin, carry, context);
  }
  const registered = carry?.kind === "files" && p.root !== undefined ? register(carry, context, p.root) : [];
  const pointerWritten = await placePointer(pointerPath, pointer);
  // Where the session's entry is, for the next warm start's look-up (inside the state folder the pointer made).
  const transcriptPlace = p.transcript === undefined ? undefined : p.places.get(p.transcript.path);
  if (transcriptPlace !== undefined) await rememberEntry(context, manifest.agent.name, manifest.session, transcriptPlace);
  const turns = judgement === undefined || judgement.kind === "same" ? undefined : { carried: judgement.carried, here: judgement.here };
  return { manifest, pointer: pointerPath, pointerWritten, store, files, registered, ...(turns === undefined ? {} : { turns }) };
}

/** What the manifest asks, checked against this sessionpin and this place, before any file is read. */
function planFor(manifest: Manifest, request: ImportRequest, context: RunContext): Plan {
  const name = manifest.agent.name;
  const plugin = pluginNamed(name, request.user);
  if (plugin === undefined || plugin.name !== name) throw refused(`it carries a session of ${JSON.stringify(name)}, an agent this sessionpin does not know`);
  const carry = plugin.carry;
  if (carry === undefined || carry.kind === "none" || carry.kind !== manifest.carry) {
    throw refused(`it carries ${name}'s session as ${manifest.carry}, which this sessionpin does not take for ${name} (${carry?.says ?? "not carried"})`);
  }
  if (!plugin.grammar.test(manifest.session)) throw refused(`${JSON.stringify(manifest.session.slice(0, 80))} is no ${name} session ID`);
  const rewrite = (): FolderRewrite => (carry.kind === "files" ? new FolderRewrite(carry.folderNames(manifest.cwd), carry.folderNames(context.cwd)) : new FolderRewrite([], []));
  const plan: Plan = { plugin, places: new Map(), pointerBytes: [], document: [], rewrite };
  plan.transcript = manifest.entries.find((e) => e.role === "transcript");
  if (carry.kind !== "files") return plan;
  const root = carry.root(context, storeLook);
  plan.root = root;
  for (const entry of manifest.entries) {
    if (entry.role === "pointer") continue;
    const path = entry.path.slice(STORE_PREFIX.length);
    if (!carry.owns(path, manifest.session)) throw refused(`${JSON.stringify(entry.path)} is no file of ${name} session ${manifest.session}`);
    const place = join(root, ...path.split("/"));
    const there = checkPlace(root, place);
    plan.places.set(entry.path, place);
    if (entry === plan.transcript && there === "file") {
      plan.here = turnsOfFile(place, new TurnReader(carry));
      if (plan.here === undefined && carry.turns !== undefined) throw refused(`${place} is here already, and is not a ${name} session this sessionpin can compare: left as it is`);
      plan.carried = new TurnReader(carry);
    }
  }
  return plan;
}

/** Where the first reading puts an entry's bytes: the pointer's and OpenCode's export kept, the transcript's turns counted. */
function sinkFor(plan: Plan, entry: ManifestEntry): EntrySink | undefined {
  if (entry.path === POINTER_NAME) return { data: (chunk) => plan.pointerBytes.push(chunk), end: () => undefined };
  if (entry !== plan.transcript) return undefined;
  if (plan.plugin.carry?.kind === "command") return { data: (chunk) => plan.document.push(chunk), end: () => undefined };
  const reader = plan.carried;
  if (reader === undefined) return undefined;
  const rewrite = plan.rewrite();
  return { data: (chunk) => reader.push(rewrite.push(chunk)), end: () => reader.push(rewrite.end()) };
}

function judged(carried: readonly string[] | undefined, here: readonly string[]): Judgement {
  if (carried === undefined) throw refused("its transcript is not a session this sessionpin can compare with the copy here");
  return judge(here, carried);
}

/** The archive's pointer, checked, for this folder. */
async function carriedPointer(bytes: Buffer, manifest: Manifest, cwd: string): Promise<Pointer> {
  const { PointerSchema } = await import("../pointer/schema.js");
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw refused("its pointer is not JSON");
  }
  const parsed = PointerSchema.safeParse(json);
  if (!parsed.success) throw refused(`its pointer is invalid: ${parsed.error.issues[0]?.message ?? "unknown"}`);
  const pointer = parsed.data;
  if (pointer.agent !== manifest.agent.name || pointer.id !== manifest.session || pointer.cwd !== manifest.cwd) {
    throw refused("its pointer names another agent, session or folder than its manifest");
  }
  return { ...pointer, cwd };
}

/** Refuses a pointer place a live run holds, or where a pointer of another session (or an unreadable one) is. */
async function checkPointerPlace(path: string, pointer: Pointer): Promise<void> {
  const holder = lockHolder(await lockCheck(path));
  if (holder !== undefined) throw new CarryError(75, `${path} is held by ${describeHolder(holder)}, which would write it again: import once that run ends`);
  const read = await readPointer(path);
  if (read.kind === "ok" && (read.pointer.id !== pointer.id || read.pointer.agent !== pointer.agent)) {
    throw refused(`${path} pins another ${read.pointer.agent} session here (${read.pointer.id}): clear it first (sessionpin pointer clear), nothing written`);
  }
  if (read.kind === "newer") throw refused(`${path} was written by a newer sessionpin (version ${read.version}): left as it is, nothing written`);
  if (read.kind === "invalid") throw refused(`${path} is unreadable (${read.reason}): clear it first (sessionpin pointer clear), nothing written`);
}

/** Writes the pointer unless the same one is there; whether it wrote. */
async function placePointer(path: string, pointer: Pointer): Promise<boolean> {
  const read = await readPointer(path);
  if (read.kind === "ok" && JSON.stringify(read.pointer) === JSON.stringify(pointer)) return false;
  await writePointer(path, pointer);
  return true;
}

/** The second reading: every store file under its temp name, then all renamed into place, the transcript last. */
async function writeFiles(file: string, plan: Plan, manifest: Manifest): Promise<void> {
  const root = plan.root as string;
  const staged = new Map<string, StagedFile>();
  try {
    await scanArchive(file, {
      manifest: (again) => {
        if (JSON.stringify(again) !== JSON.stringify(manifest)) throw refused("it changed while it was read: nothing written");
      },
      entry(entry) {
        const place = plan.places.get(entry.path);
        if (place === undefined) return undefined;
        const target = new StagedFile(root, place);
        staged.set(entry.path, target);
        const rewrite = plan.rewrite();
        return {
          data: (chunk) => target.write(rewrite.push(chunk)),
          end: () => {
            target.write(rewrite.end());
            if (target.bytes > MAX_FILE_BYTES * 2) throw refused(`${place} would grow past ${MAX_FILE_BYTES * 2} bytes`);
            target.close();
          },
        };
      },
    });
    const order = [...staged.entries()].sort(([a], [b]) => Number(a === plan.transcript?.path) - Number(b === plan.transcript?.path));
    for (const [, target] of order) target.commit();
  } catch (error) {
    for (const target of staged.values()) target.discard();
    throw error;
  }
}

/** The agent's registry entries for the new folder (Gemini's); the paths written. */
function register(carry: CarryFiles, context: RunContext, root: string): string[] {
  const writes = carry.register?.(context, root, storeLook) ?? [];
  for (const { path, text } of writes) replaceSmallFile(path, text);
  return writes.map((w) => w.path);
}
