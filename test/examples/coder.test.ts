/**
 * examples/coder/own-start-script/agentapi-start.sh for each agent (a template's own start script
 * that calls `sessionpin run` itself; module.test.ts covers the shims), run the way Coder's agentapi
 * module runs it (`start.sh true <port>` in the project folder, AGENTAPI_STATE_FILE in the module
 * folder), with a fake `agentapi` on PATH
 * (test/examples/fixtures/agentapi: records its argv and env, then execs its command, so sessionpin
 * really runs) and the fake agents of fixtures/agents. Checks what agentapi and the agent receive,
 * cold and warm, with the prompt delivered by sessionpin and by agentapi.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PtyDriver } from "../../src/pty/driver.js";
import { ROOT, Sandbox } from "../helpers/sandbox.js";
import { Cleanup, cwdOf, exitOf, sleep, waitUntil, WAIT_MS } from "../e2e/support.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const EXAMPLES = join(ROOT, "examples/coder/own-start-script");
const FIXTURES = join(import.meta.dirname, "fixtures");
const PROMPT = "Fix the failing build, then run the tests.";
// Longer than sessionpin's default --prompt-quiet (1.5 s): a wrongly typed prompt would have arrived.
const NO_PROMPT_WAIT_MS = 2_500;

interface AgentapiRun {
  readonly argv: string[];
  readonly type: string;
  readonly command: string[];
  readonly env: Record<string, string>;
}

interface Agent {
  readonly name: "amp" | "claude" | "goose";
  /** ARG_AGENT_ARGS, and the words they become in the agent's argv. */
  readonly flags: string;
  /** The ID the pointer ends up with (goose's own ID replaces the name sessionpin chose). */
  readonly idPattern: RegExp;
  readonly command: string[];
  /** The argv (without the executable) of every start of the agent so far. */
  starts(sb: Sandbox): string[][];
  /** [session, text] of every message the agent received. */
  messages(sb: Sandbox): Array<[unknown, unknown]>;
  /** On screen once the agent is up and waiting for a message. */
  readonly up: RegExp;
  /** On screen once the first message was answered. */
  readonly answered: RegExp;
  /** On screen once a warm start shows the resumed conversation. */
  readonly resumed: RegExp;
  /** The agent argvs of a cold start; `prompted` when sessionpin had the prompt. */
  coldStarts(id: string, prompted: boolean, pointer: Record<string, unknown>): string[][];
  warmStart(id: string): string[];
}

const AGENTS: Agent[] = [
  {
    name: "amp",
    flags: "--mode smart",
    idPattern: /^T-[0-9a-f-]{36}$/,
    command: ["amp", "--mode", "smart"],
    starts: (sb) => sb.events().filter((e) => e.event === "start").map((e) => e.argv),
    messages: (sb) => sb.events().filter((e) => e.event === "message").map((e) => [e["thread"], e["text"]]),
    up: /new thread/,
    answered: /Amp: noted \(1 messages in this thread\)/,
    resumed: /continued, 1 messages/,
    // The thread is made up front, then opened; the prompt is typed into it.
    coldStarts: (id) => [["--mode", "smart", "threads", "new"], ["--mode", "smart", "threads", "continue", id]],
    warmStart: (id) => ["--mode", "smart", "threads", "continue", id],
  },
  {
    name: "claude",
    flags: "--model sonnet",
    idPattern: /^[0-9a-f-]{36}$/,
    command: ["claude", "--model", "sonnet"],
    starts: (sb) => sb.fakeEvents("claude", "start").map((e) => e.argv),
    messages: (sb) => sb.fakeEvents("claude", "message").map((e) => [e.session, e.text]),
    up: /new session/,
    answered: /noted \(1 messages in this session\)/,
    resumed: /resumed \(1 messages\)/,
    // Named up front with --session-id; given by sessionpin, the prompt is Claude's argument.
    coldStarts: (id, prompted) => [["--session-id", id, "--model", "sonnet", ...(prompted ? ["--", PROMPT] : [])]],
    warmStart: (id) => ["--model", "sonnet", "--resume", id],
  },
  {
    name: "goose",
    flags: "",
    idPattern: /^\d{8}_\d+$/,
    command: ["goose", "session"],
    starts: (sb) => sb.fakeEvents("goose", "start").map((e) => e.argv),
    messages: (sb) => sb.fakeEvents("goose", "message").map((e) => [e.session, e.text]),
    up: /goose is running! \(0 messages/,
    answered: /goose: noted \(1 messages in this session\)/,
    resumed: /goose is running! \(1 messages in this session\)/,
    // Named up front (-n sessionpin-<uuid>); the pointer then follows goose's own ID from its banner.
    coldStarts: (_id, _prompted, pointer) => [["session", "-n", String((pointer["history"] as Array<{ id: string }>)[0]?.id)]],
    warmStart: (id) => ["session", "-r", "--session-id", id],
  },
];

/** The registry's layout: `$HOME/.coder-modules/<namespace>/<module>`. */
const moduleDir = (sb: Sandbox, agent: Agent): string => join(sb.home, ".coder-modules", "coder", agent.name === "claude" ? "claude-code" : agent.name);

/** The pointer in the module folder, once it holds the agent's final ID. */
async function pinned(sb: Sandbox, agent: Agent): Promise<Record<string, unknown>> {
  const path = join(moduleDir(sb, agent), `sessionpin-${agent.name}.json`);
  return waitUntil(() => {
    if (!existsSync(path)) return undefined;
    const pointer = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    return agent.idPattern.test(String(pointer["id"])) && pointer;
  }, `${agent.name}'s ID in ${path}`);
}
const agentapiRuns = (sb: Sandbox): AgentapiRun[] =>
  existsSync(join(sb.home, ".fake-agentapi-events.jsonl"))
    ? readFileSync(join(sb.home, ".fake-agentapi-events.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as AgentapiRun)
    : [];

/** The start script in a PTY the size agentapi gives, as the module calls it. */
function startScript(sb: Sandbox, agent: Agent, env: NodeJS.ProcessEnv): PtyDriver {
  return cleanup.driver(sb.direct(["bash", join(EXAMPLES, "agentapi-start.sh"), "true", "3284"], {
    env: {
      ...sb.env,
      PATH: `${FIXTURES}${delimiter}${sb.env["PATH"] ?? ""}`,
      AGENTAPI_STATE_FILE: join(moduleDir(sb, agent), "agentapi-state.json"),
      ARG_AGENT: agent.name,
      ARG_PROMPT: PROMPT,
      ARG_AGENT_ARGS: agent.flags,
      ...env,
    },
  }));
}

/** What `sessionpin plan` told the script (it echoes the line). */
function planOf(driver: PtyDriver): Record<string, unknown> {
  const line = /sessionpin plan: (\{.*\})/.exec(driver.text)?.[1];
  if (line === undefined) throw new Error(`no plan line in:\n${driver.text}`);
  return JSON.parse(line) as Record<string, unknown>;
}

async function end(driver: PtyDriver): Promise<void> {
  driver.write("\x03");
  expect((await exitOf(driver)).exitCode).toBe(0);
}

function agentapiArgv(agent: Agent, middle: readonly string[], run: readonly string[]): string[] {
  return ["server", "--type", agent.name, "--port", "3284", "--term-width", "67", "--term-height", "1190", ...middle, "--", "sessionpin", "run", ...run, "--", ...agent.command];
}

describe.each(AGENTS)("examples/coder/own-start-script/agentapi-start.sh with ARG_AGENT=$name", (agent) => {
  it("sessionpin delivers the prompt: typed into the new session cold, never sent warm", async () => {
    const sb = cleanup.sandbox();
    const promptFile = join(moduleDir(sb, agent), "prompt.txt");
    const pointerPath = join(moduleDir(sb, agent), `sessionpin-${agent.name}.json`);

    // Cold.
    let driver = startScript(sb, agent, {});
    await driver.waitFor(agent.answered, WAIT_MS);
    expect(planOf(driver)).toMatchObject({ mode: "cold", agent: agent.name, id: null, pointer: pointerPath });
    const [cold] = agentapiRuns(sb);
    expect(cold?.argv).toEqual(agentapiArgv(agent, [], ["--prompt-file", promptFile]));
    expect(cold?.type).toBe(agent.name);
    // A new session: agentapi must not show the saved chat of another one.
    expect(cold?.env).toMatchObject({ AGENTAPI_STATE_FILE: join(moduleDir(sb, agent), "agentapi-state.json"), AGENTAPI_LOAD_STATE: "false" });
    expect(readFileSync(promptFile, "utf8")).toBe(PROMPT);
    expect(statSync(promptFile).mode & 0o777).toBe(0o600);
    const pointer = await pinned(sb, agent);
    const id = String(pointer["id"]);
    expect(pointer).toMatchObject({ agent: agent.name, cwd: cwdOf(sb) });
    await sleep(1_000);
    expect(agent.starts(sb)).toEqual(agent.coldStarts(id, true, pointer));
    expect(agent.messages(sb)).toEqual([[id, PROMPT]]);
    await end(driver);

    // Warm: the same script, the same pointer.
    driver = startScript(sb, agent, {});
    await driver.waitFor(agent.resumed, WAIT_MS);
    expect(planOf(driver)).toMatchObject({ mode: "warm", agent: agent.name, id, argv: [agent.name, ...agent.warmStart(id)], pointer: pointerPath });
    await sleep(NO_PROMPT_WAIT_MS);
    expect(agent.starts(sb).at(-1)).toEqual(agent.warmStart(id));
    expect(agent.messages(sb)).toEqual([[id, PROMPT]]);
    expect(agentapiRuns(sb)[1]?.argv).toEqual(agentapiArgv(agent, [], ["--prompt-file", promptFile]));
    // The agent resumes the conversation agentapi saved: it loads its state as the module asks.
    expect(agentapiRuns(sb)[1]?.env["AGENTAPI_LOAD_STATE"]).toBeUndefined();
    await end(driver);
  });

  it("agentapi delivers the prompt: --initial-prompt on the cold start only, as `sessionpin plan` says", async () => {
    const sb = cleanup.sandbox();
    const env = { ARG_PROMPT_VIA: "agentapi" };

    // Cold: agentapi gets the prompt; sessionpin gets none. The test sends it as agentapi would.
    let driver = startScript(sb, agent, env);
    await driver.waitFor(agent.up, WAIT_MS);
    expect(planOf(driver)).toMatchObject({ mode: "cold" });
    const [cold] = agentapiRuns(sb);
    expect(cold?.argv).toEqual(agentapiArgv(agent, ["--initial-prompt", PROMPT], []));
    expect(existsSync(join(moduleDir(sb, agent), "prompt.txt"))).toBe(false);
    driver.sendMessage(PROMPT);
    await driver.waitFor(agent.answered, WAIT_MS);
    const pointer = await pinned(sb, agent);
    const id = String(pointer["id"]);
    expect(agent.starts(sb)).toEqual(agent.coldStarts(id, false, pointer));
    await end(driver);

    // Warm: no --initial-prompt, so the resumed conversation does not get the task twice.
    driver = startScript(sb, agent, env);
    await driver.waitFor(agent.resumed, WAIT_MS);
    expect(planOf(driver)).toMatchObject({ mode: "warm", id });
    expect(agentapiRuns(sb)[1]?.argv).toEqual(agentapiArgv(agent, [], []));
    await sleep(1_000);
    expect(agent.starts(sb).at(-1)).toEqual(agent.warmStart(id));
    expect(agent.messages(sb)).toEqual([[id, PROMPT]]);
    await end(driver);
  });
});

describe("examples/coder/own-start-script without agentapi's state persistence", () => {
  it("still keeps the pointer in the module folder (SESSIONPIN_POINTER), and agentapi sees it", async () => {
    const sb = cleanup.sandbox();
    const [amp] = AGENTS as [Agent];
    const pointerPath = join(moduleDir(sb, amp), "sessionpin-amp.json");
    const driver = startScript(sb, amp, { AGENTAPI_STATE_FILE: "" });
    await driver.waitFor(amp.answered, WAIT_MS);
    expect(planOf(driver)).toMatchObject({ mode: "cold", pointer: pointerPath });
    expect(agentapiRuns(sb)[0]?.env).toEqual({ AGENTAPI_STATE_FILE: "", SESSIONPIN_POINTER: pointerPath, AGENTAPI_LOAD_STATE: "false" });
    await waitUntil(() => existsSync(pointerPath), "the pointer in the module folder");
    await end(driver);
  });
});

describe("examples/coder/own-start-script after the module's data layout changed", () => {
  it("moves a pointer left in the legacy ~/.<agent>-module over, once, and the agent resumes its session", async () => {
    const sb = cleanup.sandbox();
    const [amp] = AGENTS as [Agent];
    const legacy = join(sb.home, ".amp-module");
    // An earlier start, under the module's earlier layout.
    let driver = startScript(sb, amp, { ARG_MODULE_DIR: legacy, AGENTAPI_STATE_FILE: join(legacy, "agentapi-state.json") });
    await driver.waitFor(amp.answered, WAIT_MS);
    const id = String((await waitUntil(() => existsSync(join(legacy, "sessionpin-amp.json")) && (JSON.parse(readFileSync(join(legacy, "sessionpin-amp.json"), "utf8")) as Record<string, unknown>), "the legacy pointer"))["id"]);
    await end(driver);

    driver = startScript(sb, amp, {});
    await driver.waitFor(amp.resumed, WAIT_MS);
    expect(planOf(driver)).toMatchObject({ mode: "warm", id, pointer: join(moduleDir(sb, amp), "sessionpin-amp.json") });
    expect(existsSync(join(legacy, "sessionpin-amp.json"))).toBe(false);
    expect(amp.starts(sb).at(-1)).toEqual(amp.warmStart(id));
    await end(driver);
  });
});
