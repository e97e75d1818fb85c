#!/usr/bin/env node
/**
 * Puts sessionpin's runtime dependencies, at the versions package-lock.json pins, into the npm
 * cache as a user's `npm install sessionpin` fetches them: test/install/tarball.test.ts installs
 * the packed tarball from that cache, offline. `npm ci` caches the packages' tarballs but not the
 * registry documents an install without a lockfile picks versions from, so on a fresh machine
 * that install stopped with ENOTCACHED. Run by `pretest`; with everything cached it takes no
 * network (`--prefer-offline`). When the registry cannot be reached it says so and leaves the
 * test to fail with npm's own message.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
const here = (allowed, value) => allowed === undefined || allowed.includes(value);
const specs = Object.entries(lock.packages ?? {})
  .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true && entry.devOptional !== true && !entry.link &&
    here(entry.os, process.platform) && here(entry.cpu, process.arch))
  .map(([path, entry]) => `${path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)}@${entry.version}`);
// One quick retry: npm's own (two, from 10 s apart) kept a machine without the registry waiting
// 70 s before the suite could start.
const RETRIES = ["--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=4000"];
// The npm that runs `npm test`, when it says where it is.
const [file, ...npmArgs] = process.env.npm_execpath?.endsWith("npm-cli.js") ? [process.execPath, process.env.npm_execpath] : ["npm"];
const added = spawnSync(file, [...npmArgs, "cache", "add", "--prefer-offline", ...RETRIES, ...specs], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: 120_000 });
if (added.status !== 0) {
  const why = added.error?.message ?? added.stderr.trim().split("\n").find((line) => line.includes("error")) ?? `exit ${added.status}`;
  console.warn(`cache-install-deps: could not cache ${specs.join(", ")} for the tarball install test: ${why}`);
}
