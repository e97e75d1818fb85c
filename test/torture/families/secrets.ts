import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Sandbox } from "../../helpers/sandbox.js";
import { exitOf } from "../../e2e/support.js";
import { check, hex, pick, type Context, type Family } from "../harness.js";
import { filesUnder } from "./webhook.js";
import { killLeftover } from "./agent-run.js";

/**
 * Family 8: secrets. Runs whose environment, task prompt and typed input hold secrets (a cold
 * start, then a warm one); afterwards no file sessionpin wrote (log, pointer, lock, set-aside
 * files, trace, and the recording made without --record-input) contains any of them. The
 * recording is exempt only for text the agent itself printed (it records the agent's output).
 */
export const secrets: Family = {
  name: "8 secrets",
  budgetMs: { quick: 8_000, full: 120_000 },
  async run(context, attempt) {
    const total = context.count(1, 30);
    for (let i = 0; i < total && context.timeLeft(); i++) {
      await attempt(`secrets in env, prompt and input (#${i})`, () => secretRun(context));
      if (context.timeLeft()) await attempt(`a secret in the agent's command line (#${i})`, () => argvRun(context));
    }
  },
};

const VARIABLES = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CODER_AGENT_TOKEN", "SESSIONPIN_TEST_SECRET", "PASSWORD"];

/**
 * A one-shot prompt or an API key on the agent's own command line (`claude -p "…"`): the log once
 * held the whole argv, and a recording's header the command. Neither may now.
 */
async function argvRun(c: Context): Promise<void> {
  const secret = `argv-${hex(c.random, 24)}`;
  const sb = new Sandbox();
  const state = join(sb.dir, "state");
  try {
    const words = pick(c.random, [["-p", `deploy with ${secret}`], ["-p", "hi", `--api-key=${secret}`], ["-p", "hi", "--model", secret]]);
    const driver = sb.sessionpin(["run", "--pointer", sb.pointer, "--record", join(state, "run.cast"), "--trace", join(state, "trace.jsonl"), "--", "claude", ...words, "--output-format", "stream-json", "--verbose"]);
    try {
      const { exitCode } = await exitOf(driver, 20_000);
      check(exitCode === 0, `exit ${exitCode}: ${driver.text.slice(-300)}`);
      const printed = driver.output.toString("utf8");
      check(existsSync(sb.pointer), "no pointer pinned");
      for (const file of filesUnder(state)) {
        if (file.endsWith("run.cast") && printed.includes(secret)) continue;
        check(!readFileSync(file, "latin1").includes(secret), `${file.slice(state.length + 1)} holds the agent's argv secret`);
      }
    } finally {
      killLeftover(driver);
    }
  } finally {
    sb.cleanup();
  }
}

async function secretRun(c: Context): Promise<void> {
  const secret = (what: string): string => `${what}-${hex(c.random, 24)}`;
  const inEnv = secret("env");
  const inPrompt = secret("prompt");
  const typed = secret("typed");
  const variable = pick(c.random, VARIABLES);
  const sb = new Sandbox({ [variable]: inEnv });
  const state = join(sb.dir, "state");
  const cast = join(state, "run.cast");
  const trace = join(state, "trace.jsonl");
  try {
    const shown: string[] = [];
    for (const start of ["cold", "warm"] as const) {
      const driver = sb.sessionpin(["run", "--pointer", sb.pointer, "--prompt-quiet", "0.3", "--prompt", `deploy with ${inPrompt}`, "--record", cast, "--trace", trace, "--", "amp"]);
      try {
        await driver.waitFor(start === "cold" ? /noted \(1 messages/ : /Type a message/, 20_000);
        driver.sendMessage(`the password is ${typed}`);
        await driver.waitFor(start === "cold" ? /noted \(2 messages/ : /noted \(3 messages/, 20_000);
        driver.write("\x03");
        const { exitCode } = await exitOf(driver, 20_000);
        check(exitCode === 0, `${start} run exit ${exitCode}`);
        shown.push(driver.output.toString("utf8"));
      } finally {
        killLeftover(driver);
      }
    }
    check(existsSync(sb.pointer) && existsSync(cast) && existsSync(trace), "pointer, recording or trace missing");
    const printed = shown.join("");
    for (const file of filesUnder(state)) {
      const text = readFileSync(file, "latin1");
      for (const value of [inEnv, inPrompt, typed]) {
        // What the agent printed is in its recording by design; nothing else may hold a secret.
        if (file === cast && printed.includes(value)) continue;
        check(!text.includes(value), `${file.slice(state.length + 1)} holds the ${value.split("-")[0]} secret`);
      }
    }
  } finally {
    sb.cleanup();
  }
}
