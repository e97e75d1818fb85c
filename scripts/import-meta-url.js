// Injected into the CommonJS bundles by bundle.mjs, which has esbuild read `import.meta.url` as
// this: the file's own URL, from the path Node (or launch.ts) gives it. After the bundle's
// "use strict", where a banner would end strict mode.
export const importMetaUrl = require("node:url").pathToFileURL(__filename).href;
