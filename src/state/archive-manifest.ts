import { isAbsolute } from "node:path";
import { z } from "zod";
import { SHA256_HEX } from "../digest.js";
import { badName, CARRY_FORMAT, CARRY_KIND, MAX_ENTRIES, MAX_FILE_BYTES, MAX_TOTAL_BYTES, POINTER_NAME, refused, STORE_PREFIX, type CarryError } from "./archive-rules.js";

/**
 * The manifest of a carry archive, its first entry. Loaded only by `export` and `import` (zod is
 * most of sessionpin's start-up):
 *
 *   {"format":"sessionpin-carry","version":1,"createdAt":"…","sessionpin":"0.1.0",
 *    "agent":{"name":"claude","version":"2.1.330 (Claude Code)"},"session":"<id>",
 *    "cwd":"/work/a","carry":"files",
 *    "entries":[{"path":"pointer.json","role":"pointer","size":526,"sha256":"…"},
 *               {"path":"store/<id>.jsonl","role":"transcript","size":141915,"sha256":"…"}, …]}
 */

const Entry = z.strictObject({
  path: z.string(),
  role: z.enum(["pointer", "transcript", "file"]),
  size: z.number().int().min(0).max(MAX_FILE_BYTES),
  sha256: z.string().regex(SHA256_HEX),
});

export const ManifestSchema = z.strictObject({
  format: z.literal(CARRY_KIND),
  version: z.literal(CARRY_FORMAT),
  createdAt: z.iso.datetime({ offset: true }),
  sessionpin: z.string().max(100),
  agent: z.strictObject({ name: z.string().min(1).max(100), version: z.string().max(200).nullable() }),
  session: z.string().min(1).max(1024),
  cwd: z.string().max(4096).refine(isAbsolute, "expected an absolute path"),
  /** How the session travels: its files, the agent's own export (OpenCode), or the pointer alone (Amp). */
  carry: z.enum(["files", "command", "pointer"]),
  entries: z.array(Entry).max(MAX_ENTRIES),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestEntry = Manifest["entries"][number];

/** The manifest in `text`, or the one-line reason it is refused. */
export function parseManifest(text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw refused("its manifest is not JSON");
  }
  const head = (typeof json === "object" && json !== null ? json : {}) as { format?: unknown; version?: unknown };
  if (head.format !== CARRY_KIND) throw refused("not a sessionpin archive (its manifest is another program's)");
  // A newer sessionpin's archive is refused before its fields are judged: they may mean more.
  if (Number.isSafeInteger(head.version) && (head.version as number) > CARRY_FORMAT) {
    throw refused(`written by a newer sessionpin (archive format ${String(head.version)}; this one reads ${CARRY_FORMAT})`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refused(`its manifest is invalid: ${issue === undefined ? "unknown" : `${issue.path.length > 0 ? `field ${issue.path.join(".")}: ` : ""}${issue.message}`}`);
  }
  const problem = problemOf(parsed.data);
  if (problem !== undefined) throw problem;
  return parsed.data;
}

/** What the schema cannot say: names, duplicates, roles, the total. */
function problemOf(manifest: Manifest): CarryError | undefined {
  const seen = new Set<string>();
  let total = 0;
  for (const entry of manifest.entries) {
    const bad = badName(entry.path);
    if (bad !== undefined) return refused(`its manifest lists ${JSON.stringify(entry.path.slice(0, 200))}: ${bad}`);
    if (seen.has(entry.path)) return refused(`its manifest lists ${JSON.stringify(entry.path)} twice`);
    seen.add(entry.path);
    total += entry.size;
    const pointer = entry.path === POINTER_NAME;
    if (pointer !== (entry.role === "pointer") || (!pointer && !entry.path.startsWith(STORE_PREFIX))) {
      return refused(`its manifest lists ${JSON.stringify(entry.path)} as ${entry.role}, which no sessionpin writes`);
    }
  }
  if (total > MAX_TOTAL_BYTES) return refused(`its files hold ${total} bytes together, more than ${MAX_TOTAL_BYTES}`);
  if (!seen.has(POINTER_NAME)) return refused("its manifest lists no pointer");
  const transcripts = manifest.entries.filter((e) => e.role === "transcript").length;
  const wanted = manifest.carry === "pointer" ? 0 : 1;
  if (transcripts !== wanted) {
    return refused(`its manifest lists ${transcripts} transcripts for a session carried as ${manifest.carry} (expected ${wanted})`);
  }
  // The count alone let "0 transcripts (expected 0)" name a pointer-only archive with files besides.
  if (manifest.carry === "pointer" && manifest.entries.length > 1) {
    return refused(`its manifest lists files besides the pointer (${manifest.entries.length - 1}) for a session carried as its pointer alone`);
  }
  return undefined;
}
