/**
 * Real omp (@oh-my-pi/pi-coding-agent, on Bun) through sessionpin at agentapi's 67x1190, against
 * the fake Chat Completions API (a provider in $HOME/.omp/agent/models.yml). The suite is the pi
 * family's (pi-family-suite.ts); here is what is omp's own.
 */
import { ompSessionDir } from "../../src/agents/omp.js";
import { describeFamily } from "./pi-family-suite.js";
import { writeOmpConfig } from "./pi-family-support.js";

describeFamily({
  name: "omp",
  npmPackage: "@oh-my-pi/pi-coding-agent",
  version: (pinned) => `omp/${pinned}`,
  runtime: "with bun",
  configure: writeOmpConfig,
  sessionDir: ompSessionDir,
  // 18.2.3's session file: a fixed-width title line, then the header with this folder.
  titleLine: true,
  // 18.2.3 ends on SIGINT with exit 130.
  sigintExit: 130,
  // 18.2.3's TUI sends the first user turn again behind a <system-reminder> of its own.
  userText: (text) => text.replace(/^[\s\S]*<\/system-reminder>\s*/, ""),
  stale: "01a2145a-d031-74f3-9c4e-73ade84157e7",
  refusal: (id) => `Session "${id}" not found.`,
  // With retries off (`retry.enabled: false`), one attempt fails after about 31 s.
  closedPort: { text: /^ECONNREFUSED: Unable to connect\. Is the computer able to access the url\?$/m, title: "ECONNREFUSED" },
  jsonRefusedExit: 1,
  // Keyed calls in json mode: each call's header names the session it ran in.
  headlessMode: ["--mode", "json"],
});
