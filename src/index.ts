/**
 * sessionpin as a library: `import { replay, explain, plugins, run, readPointer } from "sessionpin"`.
 * Re-exports only; every function here is the one the CLI calls.
 */

// replay / explain: recorded output through the same capture pipeline and plugins as `run`.
export { replay, type ReplayOptions, type ReplayResult } from "./replay/replay.js";
export { openSource, FORMATS, type Chunk, type Format, type Source } from "./replay/sources.js";
export { explain } from "./explain/explain.js";
export { Explainer, type Refusal, type TraceEvent } from "./engine/trace.js";
export { formatTrace } from "./explain/format.js";

// Plugins: the built-in registry (`plugins.agents.amp`, `plugins.pluginNamed("claude")`,
// `plugins.pluginForCommand("/usr/bin/goose")`), and plugins written as data.
export * as plugins from "./agents/registry.js";
export { agents, pluginForCommand, pluginNamed, pluginNames, type AgentId } from "./agents/registry.js";
export { definePlugin, PluginError, type DeclarativePlugin } from "./agents/declarative.js";
export { DeclarativePluginSchema } from "./agents/user/schema.js";
export { parsePlugin } from "./agents/user/parse.js";
export type { AgentPlugin, IdState } from "./agents/types.js";

// The pointer file.
export { readPointer, type PointerRead } from "./pointer/store.js";
export { resolvePointerPath, type PointerPathOptions } from "./pointer/path.js";
export { PointerSchema, type Pointer } from "./pointer/schema.js";
export { POINTER_VERSION } from "./pointer/version.js";

// run: one agent session in a PTY, cold or warm (`sessionpin run`), and what it needs.
export { runSession as run } from "./run/session.js";
export type { SessionOptions as RunOptions } from "./run/options.js";
export type { RunEvent, Sink } from "./run/sinks.js";
export { OuterTerminal } from "./pty/terminal.js";
export { fileLogger, type Logger } from "./log/logger.js";
export { systemClock, type Clock } from "./clock.js";

export { EXIT, SessionpinError, type ErrorCode } from "./errors.js";
