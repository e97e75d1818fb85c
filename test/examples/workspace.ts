/**
 * A Coder workspace as the sessionpin module meets it, for test/examples/module.test.ts: a home of
 * its own, the agent module's start script (fixtures/amp-module-start.sh), agentapi in a system
 * folder (the fake of fixtures/agentapi: it records its argv and environment, then execs its
 * command in place, the outer PTY standing in for agentapi's), the fake Amp where Amp's installer
 * puts it, and the module's own install script run as its coder_script and its hook run it.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PtyDriver } from "../../src/pty/driver.js";
import { ROOT, type Sandbox } from "../helpers/sandbox.js";

export const MODULE = join(ROOT, "registry/sessionpin/modules/sessionpin");
const INSTALL = join(MODULE, "scripts/install.sh");
const FIXTURES = join(import.meta.dirname, "fixtures");
const FAKE_AMP = join(ROOT, "dist/demo/fake-amp.js");

/** Where the real `amp` is: Amp's installer's folder, or a folder after the shims (an image's /usr/local/bin). */
export type AmpPlace = "installer" | "system";

/** What main.tf gives the install script, as values (main.tf base64-encodes the free-form ones). */
export interface InstallInputs {
  readonly source: string;
  readonly offline?: boolean;
  readonly agents?: readonly string[];
  readonly prompt?: string;
  readonly timeoutS?: number;
}

export interface AgentapiRun {
  readonly argv: string[];
  readonly command: string[];
  readonly env: Record<string, string>;
}

export interface PointerFile {
  readonly path: string;
  readonly pointer: Record<string, unknown>;
}

const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

export class Workspace {
  readonly home: string;
  readonly project: string;
  readonly moduleDir: string;
  readonly shimDir: string;
  /** An image's system folder: agentapi (the fake), and `amp` when it is placed there. */
  readonly system: string;
  readonly amp: string;

  constructor(readonly sb: Sandbox, place: AmpPlace) {
    this.home = sb.home;
    this.project = join(sb.home, "project");
    this.moduleDir = join(sb.home, ".coder-modules/sessionpin/sessionpin");
    this.shimDir = join(this.moduleDir, "shims");
    this.system = join(sb.dir, "usr-local-bin");
    mkdirSync(this.system, { recursive: true });
    mkdirSync(sb.home, { recursive: true });
    symlinkSync(join(FIXTURES, "agentapi"), join(this.system, "agentapi"));
    this.amp = join(place === "installer" ? join(sb.home, ".local/bin") : this.system, "amp");
    mkdirSync(dirname(this.amp), { recursive: true });
    writeFileSync(this.amp, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_AMP)} "$@"\n`);
    chmodSync(this.amp, 0o755);
    // What Amp's installer leaves in ~/.bashrc, which the start script reads.
    writeFileSync(join(sb.home, ".bashrc"), 'export PATH="$HOME/.local/bin:$PATH"\n');
  }

  /**
   * The agent's environment with the module in the template: coder_env's PATH (the shim folder,
   * sessionpin's bin, then the image's PATH) and SESSIONPIN_AGENTAPI_PROMPT_FILE when there is a prompt.
   * Built whole: nothing of the test runner's own environment (npm_*, a PATH with agents) leaks in.
   */
  env(prompt: boolean): NodeJS.ProcessEnv {
    const image = [this.system, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"];
    return {
      HOME: this.home,
      PATH: [this.shimDir, join(this.moduleDir, "npm/bin"), ...image].join(":"),
      LANG: "C.UTF-8",
      FAKE_AMP_HOME: this.sb.ampHome,
      // An empty npm cache of its own: the offline install has nothing else to draw on.
      npm_config_cache: join(this.sb.dir, "npm-cache"),
      npm_config_update_notifier: "false",
      ...(prompt ? { SESSIONPIN_AGENTAPI_PROMPT_FILE: join(this.moduleDir, "prompt.txt") } : {}),
    };
  }

  private installEnv(caller: "script" | "post_install", o: InstallInputs, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return {
      ...env,
      ARG_CALLER: caller,
      ARG_MODULE_DIR: this.moduleDir,
      ARG_SHIM_DIR: this.shimDir,
      ARG_SOURCE: b64(o.source),
      ARG_OFFLINE: String(o.offline ?? true),
      ARG_AGENTS: (o.agents ?? ["amp"]).join(" "),
      ARG_SHIM_AGENTAPI: "true",
      ARG_PROMPT: b64(o.prompt ?? ""),
      ARG_TIMEOUT: String(o.timeoutS ?? 60),
    };
  }

  /** The module's install script, as its coder_script (or the agent module's hook) runs it. */
  install(caller: "script" | "post_install", o: InstallInputs, env: NodeJS.ProcessEnv = this.env(o.prompt !== undefined)): SpawnSyncReturns<string> {
    const result = spawnSync("bash", [INSTALL], { cwd: this.home, env: this.installEnv(caller, o, env), encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL" });
    if (result.error !== undefined) throw result.error;
    return result;
  }

  /** The same, not waited for: the coder_script and the hook run at once. */
  installAsync(caller: "script" | "post_install", o: InstallInputs): Promise<{ status: number | null; output: string }> {
    const child = spawn("bash", [INSTALL], { cwd: this.home, env: this.installEnv(caller, o, this.env(false)), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    return new Promise((resolve) => child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    }));
  }

  /**
   * The start script in a PTY the size agentapi gives, run as the agentapi module runs it
   * (`start.sh true <port>`), from the home folder: the script cds to the project only after
   * `amp --version`, so a pointer that call made would be the home folder's.
   */
  start(o: { prompt: boolean; task?: string }): PtyDriver {
    const env = {
      ...this.env(o.prompt),
      ARG_AMP_START_DIRECTORY: this.project,
      ARG_AMP_TASK_PROMPT: b64(o.task ?? ""),
      ARG_REPORT_TASKS: "true",
      ARG_MODE: "smart",
      // What agentapi module 2.0.0's main.sh exports before it starts the script.
      AGENTAPI_CHAT_BASE_PATH: "",
      AGENTAPI_ALLOWED_HOSTS: "*",
    };
    return new PtyDriver(["bash", join(FIXTURES, "amp-module-start.sh"), "true", "3284"], { cwd: this.home, env });
  }

  /** Every `agentapi server` the start script ran, as the fake recorded it. */
  agentapiRuns(): AgentapiRun[] {
    const path = join(this.home, ".fake-agentapi-events.jsonl");
    return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as AgentapiRun) : [];
  }

  /** sessionpin's pointers for Amp in their default place (sourcegraph-amp 3.0.0 exports no AGENTAPI_STATE_FILE). */
  ampPointers(): PointerFile[] {
    const dir = join(this.home, ".local/state/sessionpin/amp");
    if (!existsSync(dir)) return [];
    return readdirSync(dir).filter((name) => name.endsWith(".json")).map((name) => ({
      path: join(dir, name),
      pointer: JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, unknown>,
    }));
  }

  /** The state folder sessionpin writes pointers, logs and locks to: absent until something was pinned. */
  get stateDir(): string {
    return join(this.home, ".local/state/sessionpin");
  }
}
