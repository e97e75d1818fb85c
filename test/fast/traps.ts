import { definePlugin } from "../../src/agents/declarative.js";

/**
 * Outputs made to fool a fast path that judges lines by their bytes into passing over a line that
 * matters: the equivalence tests (equivalence.test.ts) run them through it and the simple path.
 */
export const A = "T-0a1b2c3d-0000-4000-8000-00000000000a";
export const B = "T-0a1b2c3d-0000-4000-8000-00000000000b";
export const C = "T-0a1b2c3d-0000-4000-8000-00000000000c";

// Each line is a way a byte-level test could be fooled into skipping a line that matters.
export const TRAPS = [
  "Welcome to Amp {beta}",
  `{"type":"system","subtype":"init","session_id":"${A}"}`,
  `{"type":"assistant","message":{"text":"same thread"},"session_id":"${A}"}`,
  // The key spelled with a JSON escape: a fork to B.
  `{"type":"assistant","\\u0073ession_id":"${B}"}`,
  // Back to A right after, in the same chunk: the test must see B pinned by now.
  `{"type":"user","session_id":"${A}"}`,
  // The value with an escape, naming C.
  `{"type":"user","session_id":"T-0a1b2c3d-0000-4000-8000-00000000000\\u0063"}`,
  `{"type":"user","session_id":"${C}"}`,
  // The key only inside message text: nothing to take, whatever it says.
  `{"type":"assistant","text":"the \\"session_id\\":\\"${A}\\" of yesterday","session_id":"${C}"}`,
  // Colour codes inside the key: cleaning joins it, and it names A.
  `{"type":"assistant","sess\x1b[1mion_id":"${A}"}`,
  // A deeper key with another ID: the rule reads the top level only, but only a parse knows that.
  `{"type":"assistant","session_id":"${A}","tool":{"session_id":"${B}"}}`,
  // The pinned ID again, now in a line that confirms it.
  `\x1b[32m{"type":"result","session_id":"${A}"}\x1b[0m`,
  `{"type":"result","session_id":"${A}"}`,
  `{"type":"assistant","session_id":null}`,
  `{"type":"assistant","session_id":"${B}"`,
  "{not json at all}",
].join("\r\n") + "\r\n";

// A user plugin reading a nested field, confirmed by an event name: the other shape of JSON rule.
// Its grammar takes any text, escapes included.
export const nested = definePlugin({
  name: "nested",
  names: ["nested"],
  grammar: ".+",
  json: [
    { name: "hello", field: "session.id", when: { event: ["hello"] }, state: "provisional" },
    { name: "done", field: "session.id", when: { event: ["turn.done", "turn/done"] }, state: "confirmed" },
  ],
  resume: ["{args}", "--resume", "{id}"],
});
export const NESTED_TRAPS = [
  `{"event":"hello","session":{"id":"${A}"}}`,
  `{"event":"turn.started","session":{"id":"${A}"}}`,
  // The allowed value with an escaped slash: "turn/done" confirms A.
  `{"event":"turn\\/done","session":{"id":"${A}"}}`,
  `{"event":"hello","session":{"id":"${B}"}}`,
  `{"event":"turn.done","session":{"id":"${B}"}}`,
  `{"event":"turn.done","session":{"id":"${B}"}}`,
  // An escape a byte test cannot read: a tab inside the ID.
  `{"event":"hello","session":{"id":"${B}\\t2"}}`,
].join("\n") + "\n";

// A stream-json run's shape at length, for the skim: the same thread on line after line, TUI rows
// with row moves, lone CRs and blank lines between (each counted as lines), and now and then a
// line whose bytes alone cannot tell: each of those must still be read, at its right line number.
const REPEATED = [
  `{"type":"assistant","message":{"content":[{"type":"text","text":"naïve café → ok"}]},"session_id":"${A}"}`,
  "\x1b[36m│\x1b[0m working \x1b[5;1H\x1b[1mstatus\x1b[0m",
  "\x1b[2K\r\x1b[33m⠋\x1b[0m thinking\rdone",
  "",
  "\x1bMup a row",
].join("\r\n");
export const LONG = [
  `{"type":"system","subtype":"init","session_id":"${A}"}`,
  ...Array<string>(300).fill(REPEATED),
  `{"type":"assistant","\\u0073ession_id":"${B}"}`,
  ...Array<string>(20).fill(REPEATED),
  "\x1b[1m{not json}",
  ...Array<string>(20).fill(REPEATED),
  `{"type":"assistant","sess\x1b[1mion_id":"${B}"}`,
  ...Array<string>(100).fill(REPEATED.replaceAll(A, B)),
  `{"type":"assistant","session_id": "${C}"}`,
  ...Array<string>(100).fill(REPEATED.replaceAll(A, C)),
  `{"type":"assistant","session_id":"${C}","x":"\\u0041"}`,
  `{"type":"user","session_id":"${A}"}`,
  ...Array<string>(50).fill(REPEATED),
  `{"type":"result","subtype":"success",`,
  `"session_id":"${A}"}`,
  ...Array<string>(50).fill(REPEATED),
  `{"type":"result","session_id":"${A}"}`,
  ...Array<string>(50).fill(REPEATED),
  // Longer than a skim holds behind a read (16 KiB), and than one ByteScan takes (64 KiB).
  `{"type":"assistant","session_id":"${A}","text":"${"x".repeat(20_000)}"}`,
  ...Array<string>(20).fill(REPEATED),
  `\x1b[2J${Array<string>(1000).fill("\x1b[5;1Ha TUI row\x1b[0m\r").join("")}`,
  `{"type":"assistant","session_id":"${B}","text":"${"y".repeat(70_000)}"}`,
  ...Array<string>(20).fill(REPEATED.replaceAll(A, B)),
].join("\r\n") + "\r\n";

