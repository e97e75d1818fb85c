/**
 * Real pi (@mariozechner/pi-coding-agent, on Node) through sessionpin at agentapi's 67x1190,
 * against the fake Chat Completions API (a provider in $HOME/.pi/agent/models.json, PI_OFFLINE=1).
 * The suite is the pi family's (pi-family-suite.ts); here is what is pi's own.
 */
import { piSessionDir } from "../../src/agents/pi.js";
import { describeFamily } from "./pi-family-suite.js";
import { piEnv, writePiConfig } from "./pi-family-support.js";

describeFamily({
  name: "pi",
  npmPackage: "@mariozechner/pi-coding-agent",
  version: (pinned) => pinned,
  // pi has no retry switch to turn off: the fallback window outlasts its retries.
  configure: (sb, baseUrl) => writePiConfig(sb, baseUrl),
  env: piEnv,
  sessionDir: piSessionDir,
  // 0.73.1's session file starts with the header.
  titleLine: false,
  stale: "01a2145e-bf00-73cb-b3e6-ed06bac459d9",
  refusal: (id) => `No session found matching '${id}'`,
  closedPort: { text: /^Connection error\.$/m, title: "`Connection error.`" },
});
