#!/usr/bin/env node
/**
 * `npm run pack:offline`: a tarball that carries its dependencies, so
 * `npm install --global --offline ./sessionpin-<version>-offline.tgz` needs neither the registry
 * nor an npm cache. The plain `npm pack` tarball stays as it is (small, its dependencies from the
 * registry); this one is named apart so neither overwrites the other.
 *
 * What goes in: every runtime package package-lock.json pins, at its version, checked against the
 * lock's integrity. zod and undici, which the CLI loads. strip-ansi (with ansi-regex) and
 * @noble/hashes too, though the CLI's bundle inlines them: the library (dist/index.js) imports
 * them, and npm fetches whatever `dependencies` names unless it is bundled (without them the
 * offline install stopped with ENOTCACHED for @noble/hashes; they are 0.2 MB of the tarball).
 * And @lydell/node-pty with its prebuilt binaries for Linux (glibc) and macOS, x64 and arm64,
 * also those npm does not install here. Windows' are left out: sessionpin signals process groups
 * (src/pty/signals.ts), which Windows does not have.
 *
 * How: a staging folder holds dist/, LICENSE, README.md, package.json with `bundleDependencies`
 * and node_modules/ unpacked from the packages' tarballs, and `npm pack` packs it. Staged rather
 * than set in package.json: there it would put this clone's node_modules (one platform's binary)
 * into the plain tarball too.
 *
 * Options: --out DIR (default: the clone), --dist DIR (another build; default ./dist), --json
 * (print npm pack's report of the tarball, `filename` its full path).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { values: o } = parseArgs({ options: { out: { type: "string" }, dist: { type: "string" }, json: { type: "boolean" } } });
const dist = resolve(o.dist ?? join(ROOT, "dist"));
const out = resolve(o.out ?? ROOT);
const fail = (line) => {
  console.error(`pack-offline: ${line}`);
  process.exit(1);
};
if (!existsSync(join(dist, "bin/main.js"))) fail(`${join(dist, "bin/main.js")} is missing: run npm run build first (npm run pack:offline does)`);

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
const PLATFORMS = ["linux", "darwin"];
const bundled = Object.entries(lock.packages ?? {})
  .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true && entry.devOptional !== true && !entry.link &&
    (entry.os === undefined || entry.os.some((os) => PLATFORMS.includes(os))))
  .map(([path, entry]) => ({ path, entry, spec: `${path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)}@${entry.version}` }));

const stage = mkdtempSync(join(tmpdir(), "sessionpin-pack-"));
process.once("exit", () => rmSync(stage, { recursive: true, force: true }));
// The npm that runs `npm run pack:offline`, when it says where it is.
const [file, ...npmArgs] = process.env.npm_execpath?.endsWith("npm-cli.js") ? [process.execPath, process.env.npm_execpath] : ["npm"];
const npm = (args, cwd, timeout) => ({ timeout, ...spawnSync(file, [...npmArgs, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout, killSignal: "SIGKILL" }) });
/** npm's report (--json), or the one line that says why there is none. */
const report = (result, what) => {
  if (result.error !== undefined) fail(`${what}: ${result.error.code === "ETIMEDOUT" ? `npm took more than ${result.timeout / 1000} s` : result.error.message}`);
  let parsed;
  try {
    parsed = JSON.parse(result.stdout);
  } catch {
    fail(`${what}: npm exited ${result.status} (${result.stderr.trim().split("\n").find((line) => line.includes("error")) ?? "no error line"})`);
  }
  if (result.status !== 0 || parsed.error !== undefined) fail(`${what}: ${parsed.error?.summary ?? `npm exited ${result.status}`}`);
  return parsed;
};

// From the npm cache when it has them (`npm ci` put this platform's there), else the registry, with
// one quick retry (scripts/cache-install-deps.mjs says why).
const tarballs = join(stage, "tarballs");
mkdirSync(tarballs);
const fetched = report(
  npm(["pack", ...bundled.map((p) => p.spec), "--prefer-offline", "--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000", "--pack-destination", tarballs, "--json"], tarballs, 120_000),
  `cannot get the ${bundled.length} packages to bundle from the npm registry or the npm cache`,
);
const root = join(stage, "package");
// Parents before their nested node_modules.
for (const { path, entry, spec } of [...bundled].sort((a, b) => a.path.length - b.path.length)) {
  const got = fetched.find((p) => p.id === spec);
  if (got?.integrity !== entry.integrity) fail(`${spec}: npm fetched ${got?.integrity ?? "nothing"}, package-lock.json pins ${entry.integrity}`);
  mkdirSync(join(root, path), { recursive: true });
  const tar = spawnSync("tar", ["-xzf", join(tarballs, got.filename), "-C", join(root, path), "--strip-components=1"], { encoding: "utf8", timeout: 30_000 });
  if (tar.status !== 0) fail(`cannot unpack ${spec}: ${tar.error?.message ?? tar.stderr.trim()}`);
}
cpSync(dist, join(root, "dist"), { recursive: true });
for (const name of ["LICENSE", "README.md"]) copyFileSync(join(ROOT, name), join(root, name));
writeFileSync(join(root, "package.json"), `${JSON.stringify({ ...pkg, bundleDependencies: Object.keys(pkg.dependencies) }, null, 2)}\n`);

const [packed] = report(npm(["pack", "--ignore-scripts", "--pack-destination", stage, "--json"], root, 60_000), "cannot pack the staged package");
const target = join(out, `${pkg.name}-${pkg.version}-offline.tgz`);
mkdirSync(out, { recursive: true });
copyFileSync(join(stage, packed.filename), target);
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
console.log(o.json ? JSON.stringify({ ...packed, filename: target }) : `${basename(target)}: ${mb(packed.size)} (${mb(packed.unpackedSize)} unpacked), bundling ${bundled.map((p) => p.spec).join(", ")}`);
