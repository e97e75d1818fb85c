import { basename, join } from "node:path";
import { readJsonFileSync } from "../engine/store-files.js";
import type { StoreLook } from "./types.js";

/**
 * Which folder of ~/.gemini/tmp holds a working folder's sessions, by Gemini CLI 0.61's
 * projectRegistry.ts: projects.json first, then the folders' `.project_root` markers, then a slug.
 */

const SLUG = /^[a-z0-9-]+$/;

/**
 * The slug 0.61's projectRegistry.ts claims for a folder with no entry yet: the basename, lower
 * case, runs of other characters made one `-`, none at either end; "project" when nothing is left.
 */
function slugOf(cwd: string): string {
  return basename(cwd).toLowerCase().replace(/[^a-z0-9]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "") || "project";
}

/** projects.json's `projects` when it is a registry 0.61 would keep ({} when there is none yet); undefined otherwise. */
export function registryOf(home: string, look: StoreLook): Record<string, string> | undefined {
  const path = join(home, "projects.json");
  if (look.size(path) === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(look.head(path, 4 * 1024 * 1024) ?? "");
  } catch {
    return undefined;
  }
  const projects = (parsed as { projects?: unknown } | null)?.projects;
  if (typeof projects !== "object" || projects === null) return undefined;
  const entries = Object.entries(projects);
  return entries.every(([, slug]) => typeof slug === "string" && SLUG.test(slug)) ? Object.fromEntries(entries) as Record<string, string> : undefined;
}

/**
 * The project (folder under tmp/) 0.61 would give `cwd` on this machine, by projectRegistry.ts's
 * getShortId: its projects.json entry when the folder's `.project_root` marker does not name
 * another; else the folder whose marker names `cwd`; else the first of `<slug>`, `<slug>-1`, …
 * that neither projects.json nor a marker gives another folder.
 */
export function carriedProject(home: string, cwd: string, look: StoreLook): string {
  const owner = (slug: string): string | undefined => look.head(join(home, "tmp", slug, ".project_root"), 64 * 1024)?.trim();
  const registry = registryOf(home, look) ?? {};
  const mapped = registry[cwd];
  if (mapped !== undefined && SLUG.test(mapped) && (owner(mapped) ?? cwd) === cwd) return mapped;
  const marked = (look.list(join(home, "tmp")) ?? []).find((e) => e.kind === "folder" && SLUG.test(e.name) && owner(e.name) === cwd);
  if (marked !== undefined) return marked.name;
  const taken = new Set(Object.values(registry));
  const slug = slugOf(cwd);
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? slug : `${slug}-${n}`;
    if (!taken.has(candidate) && (owner(candidate) ?? cwd) === cwd) return candidate;
  }
}

/**
 * The folder name 0.61 gives `cwd` under ~/.gemini/tmp: its entry in ~/.gemini/projects.json
 * (`{"projects":{"<cwd>":"<slug>"}}`, written on the first run in the folder), else the slug it
 * would claim (projectRegistry.ts: the basename, lower case, runs of other characters made one
 * `-`; a taken slug gets `-1`, `-2`, …, which only projects.json tells).
 */
export function projectOf(root: string, cwd: string): string {
  // No registry yet, or one being rewritten: the slug it will claim. A FIFO or a link to a device
  // there is none either: read before the agent starts, it would hold the start, or fill memory.
  const projects = readConfig(join(root, "projects.json"))?.["projects"];
  const slug = typeof projects === "object" && projects !== null ? (projects as Record<string, unknown>)[cwd] : undefined;
  if (typeof slug === "string" && slug !== "" && !slug.includes("/") && slug !== "..") return slug;
  return slugOf(cwd);
}

/**
 * One of Gemini's JSON files under ~/.gemini, as a small regular file (a link to one is followed:
 * dotfiles are often links), or undefined. 4 MiB holds a projects.json of tens of thousands of folders.
 */
export function readConfig(path: string): Record<string, unknown> | undefined {
  return readJsonFileSync(path, { maxBytes: 4 * 1024 * 1024, follow: true });
}
