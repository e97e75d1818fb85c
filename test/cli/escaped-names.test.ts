/**
 * Names from pointer files, lock files and folder names reach the terminal in `pointer show`,
 * `pointer clear` and `sessions`: escaped as `explain` escapes them (src/explain/escape.ts), never
 * as escape sequences or bidirectional controls a terminal would act on.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { Cleanup, cli } from "../e2e/support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

// What a terminal acts on or shows other than it is: C0/C1 controls, DEL, bidi and invisible format characters.
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const HOSTILE = "T-\x1b]0;owned\x07\x1b[2J\u202eabc";

it("pointer show, pointer clear, sessions and doctor print no escape sequence or bidi control a pointer holds", () => {
  const sb = cleanup.sandbox();
  const folder = join(sb.dir, "xdg-state", "sessionpin", "amp\x1b[31m");
  mkdirSync(folder, { recursive: true });
  const pointer = join(folder, "0123456789abcdef.json");
  const at = "2026-11-20T09:00:00.000Z";
  writeFileSync(pointer, JSON.stringify({
    version: 1, agent: `amp\u202e`, id: HOSTILE, state: "confirmed", cwd: `/tmp/\x1b[8m\u2066x`, capturedAt: at, key: `k\x9b2J`,
    source: { rule: "r\x1bc" }, history: [{ id: HOSTILE, at, reason: "switched \x1b[?1049h" }],
  }));
  const shown = cli(sb, ["pointer", "show", "--pointer", pointer]);
  expect(shown.stdout).toContain("T-\\x1b]0;owned\\x07\\x1b[2J\\u{202e}abc");
  const sessions = cli(sb, ["sessions"]);
  expect(sessions.stdout).toContain("T-\\x1b]0;owned\\x07\\x1b[2J\\u{202e}abc");
  const doctor = cli(sb, ["doctor", "--pointer", pointer, "--", "amp"]);
  expect(doctor.stdout).toContain("T-\\x1b]0;owned\\x07\\x1b[2J\\u{202e}abc");
  const cleared = cli(sb, ["pointer", "clear", "--pointer", pointer]);
  expect(cleared.stdout).toMatch(/^moved .*amp\\x1b\[31m/);
  for (const out of [shown, sessions, doctor, cleared]) {
    expect(UNSAFE.test(out.stdout), JSON.stringify(out.stdout)).toBe(false);
    expect(UNSAFE.test(out.stderr), JSON.stringify(out.stderr)).toBe(false);
  }
});
