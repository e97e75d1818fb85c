import type { DeclarativePlugin } from "./declarative.js";

/**
 * The ID shapes and stream-json rules several agents share, written once: plugins import them
 * rather than each spelling its own copy.
 */

type JsonRule = NonNullable<DeclarativePlugin["json"]>[number];

/** A lower-case dashed UUID, 8-4-4-4-12 hex digits; unanchored, for grammars and text rules. */
export const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** A value that is one UUID and nothing else: an option's value (`--resume X`, `--session-id X`). */
export const UUID_ONLY = new RegExp(`^${UUID}$`);

/**
 * A UUID in matching quotes, or none, that no further ID character follows (`--resume=<id>`,
 * `--resume-id "<id>"` in exit hints; a digit too many is no ID). Its groups are `q` and `id`.
 */
export const QUOTED_UUID = `(?<q>["']?)(?<id>${UUID})\\k<q>(?![0-9A-Za-z-])`;

/** A store entry named by its session's UUID and `suffix` alone: `<uuid>`, `<uuid>.jsonl`. */
export const uuidEntry = (suffix = ""): RegExp => new RegExp(`^(?<id>${UUID})${suffix.replaceAll(".", "\\.")}$`);

/*
 * Claude Code's stream-json, which Amp, Cursor and Qwen Code print in the same shape: every line
 * names the session in a top-level `session_id`. `system`/`init` and the `user`/`assistant`
 * messages name it before anything is stored; a successful `result` confirms it (a failed one is
 * a `result` too). Each plugin says which of these it uses and which lines of its own it adds.
 */
export const STREAM_INIT: JsonRule = { name: "system-init", field: "session_id", when: { type: ["system"], subtype: ["init"] }, state: "provisional" };
export const STREAM_MESSAGE: JsonRule = { name: "message", field: "session_id", when: { type: ["user", "assistant"] }, state: "provisional" };
export const STREAM_RESULT: JsonRule = { name: "result", field: "session_id", when: { type: ["result"], subtype: ["success"] }, state: "confirmed" };
