import { createServer, type Server, type Socket } from "node:net";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CLI, ROOT, Sandbox } from "../../helpers/sandbox.js";
import { cli, exitOf, sleep } from "../../e2e/support.js";
import { check, hex, pick, randomBytes, STACK, type Context, type Family } from "../harness.js";
import { checkOneLine, killLeftover } from "./agent-run.js";

/**
 * Family 7: hostile webhook servers on 127.0.0.1: one that never answers, one that answers a byte
 * at a time, 10 MB replies, redirects (to itself, to file://), 500 for ever, garbage, a reset.
 * The agent never waits (a message typed while the receivers misbehave is answered at once), the
 * exit is delayed at most the documented 3 s, the exit code passes through, and credentials in
 * the URL appear in no file sessionpin writes. URLs of other schemes are refused at parse time
 * (exit 2, one line, the agent not started, no credentials in the line).
 */
export const webhook: Family = {
  name: "7 hostile webhook servers",
  budgetMs: { quick: 14_000, full: 240_000 },
  async run(context, attempt) {
    const total = context.count(2, 40);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      if (i % 4 === 0) await attempt(`a flood: the ID changes every 5 ms, a silent receiver, ulimit -n 256 (#${i})`, () => flood(context));
      const kinds = Array.from({ length: 1 + Math.floor(context.random() * 3) }, () => pick(context.random, SERVERS));
      await attempt(`receivers: ${kinds.join(", ")} (#${i})`, () => hostile(context, kinds));
      if (i % 2 === 0) await attempt(`refused at parse time (#${i})`, () => refused(context));
    }
  },
};

const SERVERS = ["silent", "byte by byte", "10 MB reply", "redirect to itself", "redirect to file://", "500 for ever", "garbage", "reset"] as const;
type Kind = (typeof SERVERS)[number];

/** The documented bound on what the exit waits for webhooks, plus room for a busy machine. */
const EXIT_MS = 3_000 + 2_500;

function serve(kind: Kind, random: () => number): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.once("data", () => {
      const port = (server.address() as { port: number }).port;
      const head = (status: string, extra = ""): string => `HTTP/1.1 ${status}\r\n${extra}content-length: 0\r\n\r\n`;
      switch (kind) {
        case "silent":
          break;
        case "byte by byte": {
          const reply = Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
          let at = 0;
          const timer = setInterval(() => (at < reply.length && !socket.destroyed ? socket.write(reply.subarray(at, ++at)) : clearInterval(timer)), 300);
          socket.on("close", () => clearInterval(timer));
          break;
        }
        case "10 MB reply":
          socket.write("HTTP/1.1 200 OK\r\ncontent-length: 10485760\r\n\r\n");
          for (let i = 0; i < 10; i++) socket.write(Buffer.alloc(1 << 20, "x"));
          break;
        case "redirect to itself":
          socket.write(head("302 Found", `location: http://127.0.0.1:${port}/again\r\n`));
          break;
        case "redirect to file://":
          socket.write(head("307 Temporary Redirect", "location: file:///etc/passwd\r\n"));
          break;
        case "500 for ever":
          socket.write(head("500 Internal Server Error"));
          break;
        case "garbage":
          socket.end(randomBytes(random, 4096));
          break;
        case "reset":
          socket.resetAndDestroy();
          break;
      }
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, sockets })));
}

async function hostile(c: Context, kinds: readonly Kind[]): Promise<void> {
  const sb = new Sandbox();
  const servers = await Promise.all(kinds.map((kind) => serve(kind, c.random)));
  const secret = `s3cret-${hex(c.random, 16)}`;
  try {
    const urls = servers.map((s, i) => (i % 2 === 0 ? `http://hook:${secret}@127.0.0.1:${s.port}/hooks/${secret}?token=${secret}` : `http://127.0.0.1:${s.port}/hooks/${secret}`));
    const code = 1 + Math.floor(c.random() * 100);
    const driver = sb.sessionpin(["run", "--pointer", sb.pointer, "--prompt-quiet", "0.3", ...urls.flatMap((url) => ["--notify", url]), "--", "amp"]);
    try {
      await driver.waitFor(/Type a message/, 20_000);
      // Pin events are in flight now; a message must still be answered at once.
      const sent = Date.now();
      driver.sendMessage("still here?");
      await driver.waitFor(/noted \(1 messages/, 10_000);
      check(Date.now() - sent < 3_000, `a message took ${Date.now() - sent} ms to be answered`);
      await sleep(c.random() * 1_000);
      const asked = Date.now();
      driver.sendMessage(`/exit ${code}`);
      const { exitCode } = await exitOf(driver, 20_000);
      const took = Date.now() - asked;
      check(exitCode === code, `exit ${exitCode}, expected the agent's ${code}`);
      check(took < EXIT_MS, `exit took ${took} ms after the agent's, more than ${EXIT_MS}`);
      checkOneLine(driver.text, 0);
      check(!driver.text.includes(secret), "the secret was shown on the terminal");
      for (const file of filesUnder(sb.dir)) check(!readFileSync(file, "latin1").includes(secret), `the URL's secret is in ${file}`);
    } finally {
      killLeftover(driver);
    }
  } finally {
    for (const s of servers) {
      for (const socket of s.sockets) socket.destroy();
      s.server.close();
    }
    sb.cleanup();
  }
}

const FLAPPER = join(ROOT, "fixtures/plugins/flapper.json");

/**
 * The flapper agent changes its ID every 5 ms while the receiver never answers, under a limit of
 * 256 open files: webhooks once took a socket per event, ran the process out of descriptors
 * (EMFILE) within seconds, and the pointer writes failed with them.
 */
async function flood(c: Context): Promise<void> {
  const sb = new Sandbox();
  const env = { ...sb.env, FLAPPER_STATE: join(sb.dir, "flapper.state") };
  const receiver = await serve("silent", c.random);
  let most = 0;
  receiver.server.on("connection", () => void (most = Math.max(most, receiver.sockets.size)));
  try {
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    const driver = sb.direct(["sh", "-c", 'ulimit -n 256; exec "$0" "$@"', process.execPath, CLI, "run", "--pointer", sb.pointer, "--plugin", FLAPPER, "--notify", url, "--", "flapper"], { env });
    try {
      await sleep(c.mode === "quick" ? 2_500 : 3_000 + c.random() * 5_000);
      const asked = Date.now();
      driver.write("\x03");
      const { exitCode } = await exitOf(driver, 20_000);
      const took = Date.now() - asked;
      const log = sb.readLog();
      check(exitCode === 130, `exit ${exitCode}, expected the agent's 130 (SIGINT); terminal: ${driver.text.slice(-300)}`);
      check(took < EXIT_MS, `exit took ${took} ms after Ctrl-C, more than ${EXIT_MS}`);
      check(!STACK.test(driver.text) && !STACK.test(log), `a stack trace: ${driver.text.slice(-600)}`);
      check(!/EMFILE/.test(log), `out of file descriptors: ${log.split("\n").find((l) => l.includes("EMFILE"))?.slice(0, 300)}`);
      check(most <= 2, `${most} connections to the receiver at once`);
      check(!existsSync(`${sb.pointer}.lock`), "the lock was left behind");
      const latest = Number(readFileSync(join(sb.dir, "flapper.state"), "utf8").trim());
      const pinned = Number(/"id": "F-(\d+)"/.exec(readFileSync(sb.pointer, "utf8"))?.[1]);
      check(pinned >= latest - 2, `the pointer fell behind: F-${pinned}, the agent at F-${latest}`);
    } finally {
      killLeftover(driver);
    }
  } finally {
    for (const socket of receiver.sockets) socket.destroy();
    receiver.server.close();
    sb.cleanup();
  }
}

async function refused(c: Context): Promise<void> {
  const sb = new Sandbox();
  try {
    const secret = `s3cret-${hex(c.random, 16)}`;
    const url = pick(c.random, [
      "file:///etc/passwd",
      `ftp://user:${secret}@127.0.0.1/x`,
      "javascript:alert(1)",
      "data:text/plain,hello",
      `gopher://127.0.0.1:70/${secret}`,
      "ws://127.0.0.1:1/",
      "not a url",
      `//127.0.0.1/${secret}`,
      "http://",
      `file://user:${secret}@localhost/etc/passwd`,
    ]);
    const result = cli(sb, ["run", "--pointer", sb.pointer, "--notify", url, "--", "amp"]);
    check(result.status === 2, `exit ${result.status} for --notify ${url}`);
    check(result.stderr.trim().split("\n").length === 1, `stderr: ${result.stderr.slice(0, 300)}`);
    check(!result.stderr.includes(secret), `the URL's secret is on stderr: ${result.stderr.trim()}`);
    check(sb.events().length === 0, "the agent was started");
  } finally {
    sb.cleanup();
  }
}

/** Every regular file under `dir` (the sandbox: pointer, log, HOME, the fake agent's state). */
export function filesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) found.push(...filesUnder(path));
    else if (stat?.isFile()) found.push(path);
  }
  return found;
}
