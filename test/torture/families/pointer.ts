import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../../helpers/sandbox.js";
import { exitOf, pointerByHand } from "../../e2e/support.js";
import { check, pick, sessionpin, STACK, uuid, type Context, type Family } from "../harness.js";
import { ampRun, checkAmpArgv, checkOneLine } from "./agent-run.js";

/**
 * Family 2: hostile pointer and lock files. Whatever the pointer folder holds, no hostile value
 * reaches the agent's argv (checked in fake Amp's own log of its argv), nothing is written
 * through a symlink, the agent runs and its exit code passes through, and sessionpin prints at
 * most one line of its own. A pointer of a newer version is refused (exit 3) and left untouched.
 */
export const pointer: Family = {
  name: "2 hostile pointer and lock files",
  budgetMs: { quick: 10_000, full: 180_000 },
  async run(context, attempt) {
    const total = context.count(7, 150);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      // Quick mode: the newest attacks first, then random ones.
      const setup = context.mode === "quick" && i < NEWEST.length ? (NEWEST[i] as Setup) : pick(context.random, SETUPS);
      const sb = new Sandbox();
      try {
        const made = setup(context, sb);
        await attempt(`${made.label} (#${i})`, async () => {
          const code = 1 + Math.floor(context.random() * 100);
          const before = made.decoy === undefined ? undefined : readFileSync(made.decoy, "utf8");
          const pointerBefore = made.refused ? readFileSync(sb.pointer) : undefined;
          if (made.refused) {
            const driver = sb.sessionpin(["run", "--pointer", sb.pointer, ...(made.options ?? []), "--", "amp"]);
            const { exitCode } = await exitOf(driver, 20_000).catch((error: unknown) => {
              driver.kill("SIGKILL");
              throw error;
            });
            check(exitCode === 3, `exit ${exitCode}, expected 3 (refused); output: ${driver.text.slice(0, 300)}`);
            check(readFileSync(sb.pointer).equals(pointerBefore ?? Buffer.alloc(0)), "the refused pointer was changed");
            checkOneLine(driver.text);
            return;
          }
          const { exitCode, text } = await ampRun(sb, ["--pointer", made.pointer ?? sb.pointer, ...(made.options ?? [])], code);
          check(exitCode === code, `exit ${exitCode}, expected the agent's ${code}; output: ${text.slice(0, 300)}`);
          checkAmpArgv(sb);
          checkOneLine(text);
          if (made.decoy !== undefined) check(readFileSync(made.decoy, "utf8") === before, `the symlink's target ${made.decoy} was written`);
          if (made.said !== undefined) check(text.split("\n").some((line) => line.startsWith("sessionpin") && made.said?.test(line)), `nothing said ${made.said}: ${text.slice(0, 400)}`);
          if (made.node !== undefined) check(kindOf(made.node.path) === made.node.kind, `the ${made.node.kind} at ${made.node.path} is now ${kindOf(made.node.path)}`);
          if (made.after !== undefined) await made.after();
          const log = sb.readLog();
          check(!STACK.test(log), `a stack trace in the log: ${log.slice(0, 600)}`);
          // A newline inside a hostile ID must not forge a log line of its own.
          if (made.hostile?.includes("\n")) check(!/^(--mode|free)/m.test(log), `the ID's newline made its own log line: ${log.slice(0, 600)}`);
        });
      } finally {
        chmodSafe(join(sb.dir, "state"));
        sb.cleanup();
      }
    }
  },
};

interface Made {
  readonly label: string;
  readonly pointer?: string;
  readonly options?: string[];
  readonly decoy?: string;
  readonly refused?: boolean;
  readonly hostile?: string;
  /** A line sessionpin must print (a shared folder is refused, not used silently). */
  readonly said?: RegExp;
  /** A FIFO or device that must still be one after the run. */
  readonly node?: { readonly path: string; readonly kind: string };
  /** More checks after the run. */
  readonly after?: () => Promise<void>;
}

/** What is at `path`: "fifo", "char", "link", "file", "folder" or "none". */
function kindOf(path: string): string {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return "none";
  return stat.isFIFO() ? "fifo" : stat.isCharacterDevice() ? "char" : stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "folder" : stat.isFile() ? "file" : "other";
}

const chmodSafe = (path: string): void => {
  try {
    chmodSync(path, 0o700);
  } catch {
    // not there
  }
};

const state = (sb: Sandbox): string => {
  mkdirSync(join(sb.dir, "state"), { recursive: true, mode: 0o700 });
  return join(sb.dir, "state");
};

/** The pointer of the e2e tests, with a thread ID from the seeded generator. */
function pointerBody(c: Context, sb: Sandbox, fields: Record<string, unknown>): Record<string, unknown> {
  return pointerByHand(sb, { id: `T-${uuid(c.random)}`, ...fields });
}

const write = (sb: Sandbox, body: unknown): void => {
  state(sb);
  writeFileSync(sb.pointer, typeof body === "string" ? body : JSON.stringify(body), { mode: 0o600 });
};

function hostileId(c: Context): string {
  const id = `T-${uuid(c.random)}`;
  return pick(c.random, [
    `${id}; touch pwned`,
    `${id}$(touch pwned)`,
    `\`touch pwned\`${id}`,
    `-${id}`,
    `--dangerously-allow-all`,
    `../../${id}`,
    `${id}/../../etc/passwd`,
    `${id}\n--mode\nfree`,
    `${id}\r\n`,
    ` ${id}`,
    `${id}\0`,
    `T-${"a".repeat(2_000_000)}`,
    id.replace("T-", "Т-"), // Cyrillic Te
    id.replace(/[0-9]/, (d) => String.fromCodePoint(0xff10 + Number(d))), // a fullwidth digit
    id.replace("-", "\u2010"), // a Unicode hyphen
    id.toUpperCase(),
    `${id}\u200b`, // a zero-width space
  ]);
}

type Setup = (c: Context, sb: Sandbox) => Made;

/** Attacks added with issue 43: quick mode tries each of them once. */
const NEWEST: Setup[] = [
  (c, sb) => {
    // A file named like a pointer, 1 GiB (sparse): refused by its size, never read whole.
    write(sb, "");
    truncateSync(sb.pointer, 2 ** 30 + Math.floor(c.random() * 2 ** 20));
    return {
      label: "a pointer file of 1 GiB",
      after: async () => {
        // It was set aside as corrupt by the run; `pointer show` of a copy reads it in bounded memory.
        const copy = join(sb.dir, "state", "big.json");
        writeFileSync(copy, "");
        truncateSync(copy, 2 ** 30);
        const shown = await sessionpin(["pointer", "show", "--pointer", copy], { cwd: sb.dir, env: sb.env, deadlineMs: 20_000 });
        check(shown.code === 1 && /more than any pointer/.test(shown.stdout), `pointer show: exit ${shown.code}: ${shown.stdout.slice(0, 200)}`);
        check(shown.peakKiB === undefined || shown.peakKiB < 100 * 1024, `pointer show of a 1 GiB file peaked at ${Math.round((shown.peakKiB ?? 0) / 1024)} MiB`);
      },
    };
  },
  (c, sb) => {
    // --record-mode overwrite at what is no regular file: as root, /dev/null was once replaced.
    const path = join(state(sb), "run.cast");
    const kind = process.getuid?.() === 0 ? pick(c.random, ["fifo", "char"]) : "fifo";
    if (kind === "fifo") execFileSync("mkfifo", [path]);
    else execFileSync("mknod", [path, "c", "1", "3"]);
    return { label: `--record-mode overwrite at a ${kind === "fifo" ? "FIFO" : "character device"}`, options: ["--record", path, "--record-mode", pick(c.random, ["overwrite", "append"])], node: { path, kind } };
  },
  (c, sb) => {
    // Like /tmp: anyone may put a pointer or a lock there first. Refused, and said.
    write(sb, pointerBody(c, sb, {}));
    chmodSync(join(sb.dir, "state"), 0o1777);
    return { label: "a pointer folder that is world-writable and sticky (1777)", said: /writable by every user/ };
  },
];

const SETUPS: Setup[] = [
  (c, sb) => {
    const id = hostileId(c);
    write(sb, pointerBody(c, sb, { id, history: c.random() < 0.5 ? [] : [{ id, at: "2026-01-01T00:00:00.000Z", reason: id }] }));
    return { label: `hostile ID ${JSON.stringify(id.slice(0, 60))}`, hostile: id.length > 100 ? undefined : id };
  },
  (c, sb) => {
    const field = pick(c.random, [
      { id: 42 }, { id: null }, { id: ["T-x"] }, { agent: ["amp"] }, { agent: null }, { state: "maybe" }, { cwd: 7 },
      { capturedAt: -1 }, { history: "lots" }, { messages: [{ sha256: 5 }] }, { source: "nope" }, { key: { deep: true } },
      { history: Array.from({ length: 50_000 }, () => ({ id: "T-x", at: "x", reason: "x" })) },
    ]);
    write(sb, pointerBody(c, sb, field));
    return { label: `wrong type ${JSON.stringify(field).slice(0, 60)}` };
  },
  (c, sb) => {
    const body = pick(c.random, ["[]", "null", '"amp"', "1", "{", "\0\0\0", "{}", `${JSON.stringify(pointerBody(c, sb, {}))}garbage`, "\ufeff{}"]);
    write(sb, body);
    return { label: `not a pointer ${JSON.stringify(body).slice(0, 40)}` };
  },
  (c, sb) => {
    const version = pick(c.random, [0, -1, 1.5, "1", "2", null, 1e308]);
    write(sb, pointerBody(c, sb, { version }));
    return { label: `version ${JSON.stringify(version)}` };
  },
  (c, sb) => {
    const version = pick(c.random, [2, 3, 99]);
    write(sb, pointerBody(c, sb, { version }));
    return { label: `newer version ${version}`, refused: true };
  },
  (c, sb) => {
    // Another agent's or folder's pointer at a path the user named: refused, left untouched.
    const field = pick(c.random, [{ agent: "../amp" }, { agent: "claude" }, { agent: "amp; rm -rf ~" }, { cwd: "/" }, { cwd: "/tmp/../etc" }]);
    write(sb, pointerBody(c, sb, field));
    return { label: `someone else's ${JSON.stringify(field)}`, refused: true };
  },
  (c, sb) => {
    const decoy = join(sb.dir, "decoy");
    const target = pick(c.random, ["pointer", "lock", "log", "recording", "trace", "takeover"]);
    writeFileSync(decoy, c.random() < 0.5 ? "precious\n" : JSON.stringify(pointerBody(c, sb, {})));
    state(sb);
    const links: Record<string, string> = {
      pointer: sb.pointer,
      lock: `${sb.pointer}.lock`,
      log: sb.log,
      recording: join(sb.dir, "state", "run.cast"),
      trace: join(sb.dir, "state", "trace.jsonl"),
      takeover: `${sb.pointer}.lock.takeover`,
    };
    const link = links[target] ?? sb.pointer;
    symlinkSync(decoy, link);
    const options = target === "recording" ? ["--record", link] : target === "trace" ? ["--trace", link] : [];
    return { label: `a symlink at the ${target}`, decoy, options };
  },
  (c, sb) => {
    const kind = pick(c.random, ["file", "read-only", "world-writable", "another user's", "dangling symlink"]);
    const dir = join(sb.dir, "state");
    if (kind === "file") writeFileSync(dir, "");
    else if (kind === "dangling symlink") symlinkSync(join(sb.dir, "nowhere"), dir);
    else {
      state(sb);
      writeFileSync(sb.pointer, JSON.stringify(pointerBody(c, sb, {})), { mode: 0o600 });
      if (kind === "read-only") chmodSync(dir, 0o500);
      if (kind === "world-writable") chmodSync(dir, 0o777);
      if (kind === "another user's") chownSync(dir, 65534, 65534);
    }
    // A folder every user may write to is refused, in one line, never used without a word.
    return { label: `a pointer folder that is ${kind}`, ...(kind === "world-writable" ? { said: /writable by every user/ } : {}) };
  },
  ...NEWEST,
];
