import type { StoreLook } from "../agents/types.js";
import { kindOfSync, listFolderSync, readSpanSync } from "../engine/store-files.js";

/** The most entries one listing returns: a store folder with more is not read (Codex's day folders hold tens). */
const MAX_ENTRIES = 100_000;

/**
 * The StoreLook of this machine, for the carry specs: the store readers' rules (src/engine/
 * store-files.ts), synchronous, as `export` and `import` run nothing else meanwhile. A link is
 * never followed, apart from the folder listed itself (a store kept on another disk).
 */
export const storeLook: StoreLook = {
  list(dir) {
    const listing = listFolderSync(dir, MAX_ENTRIES);
    return listing.kind === "listed" ? listing.entries : undefined;
  },
  head(path, maxBytes) {
    const span = readSpanSync(path, 0, { maxBytes });
    return span === undefined || span === "unchanged" ? undefined : span.bytes.toString("utf8");
  },
  size(path) {
    if (kindOfSync(path) !== "file") return undefined;
    const span = readSpanSync(path, 0, { maxBytes: 0 });
    return span === undefined || span === "unchanged" ? undefined : span.size;
  },
};
