/** A random recording for tests that read files: see `transcript`. */

const id = (random: () => number, prefix = ""): string => `${prefix}${[8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(random() * 16)]).join("")).join("-")}`;
const words = (random: () => number, n: number): string => Array.from({ length: n }, () => ["read", "test", "fix", "café", "→", "lines"][Math.floor(random() * 6)]).join(" ");

/**
 * Raw PTY bytes of several agents' stream JSON and TUI text, with the ways a thread changes
 * (forks, escaped keys and values, colours inside a key, fields a rule does not take) at random.
 * IDs are UUIDs, with Amp's `T-` when `prefix` says so.
 */
export function transcript(random: () => number, bytes: number, prefix: string): Buffer {
  let current = id(random, prefix);
  const out: string[] = [];
  let size = 0;
  const add = (line: string): void => {
    out.push(line);
    size += line.length;
  };
  add(`{"type":"system","subtype":"init","session_id":"${current}"}\r\n`);
  while (size < bytes) {
    const r = random();
    if (r < 0.6) add(`{"type":"assistant","message":{"text":"${words(random, 20 + Math.floor(random() * 300))}"},"session_id":"${current}"}\r\n`);
    else if (r < 0.68) add(`{"type":"result","subtype":"success","session_id":"${current}","id":"${current}"}\r\n`);
    else if (r < 0.8) add(`\x1b[${1 + Math.floor(random() * 20)};1H\x1b[36m│\x1b[0m ${words(random, 8)}\r\x1b[2K\x1b[33m⠋\x1b[0m Thinking\r\n`);
    else if (r < 0.85) add("\r\n\r\n");
    else if (r < 0.9) add(`{"type":"session","id":"${current}","cwd":"/w"}\n`);
    else if (r < 0.995) add(`plain text {with braces} ${words(random, 10)}\n`);
    else {
      const next = id(random, prefix);
      const trap = Math.floor(random() * 6);
      // A "result" key that is no result event: the thread looks confirmed from the bytes, but is not.
      if (trap === 0) add(`{"type":"system","subtype":"init","session_id":"${next}"}\r\n{"type":"assistant","result":"ok","session_id":"${next}"}\r\n`);
      if (trap === 1) add(`{"type":"assistant","\\u0073ession_id":"${next}"}\r\n`);
      if (trap === 2) add(`{"type":"assistant","sess\x1b[1mion_id":"${next}"}\r\n`);
      if (trap === 3) add(`{"type":"tool_progress","session_id":"${next}"}\r\n`);
      if (trap === 4) add(`{"type":"user","session_id":"${next.slice(0, -1)}\\u0063"}\r\n`);
      if (trap === 5) add(`${"x".repeat(1024 * 1024 + 100)}{"type":"user","session_id":"${next}"}\r\n`);
      if (trap !== 3) current = next;
    }
  }
  return Buffer.from(out.join(""));
}

/**
 * Runs of one ID, each over 40 KB (blocks a worker lets the main thread skip), each ended by a
 * line whose key a colour code splits and that names the next ID: a line only a scan for control
 * bytes tells from one that cannot change the pin.
 */
export function splitKeyRuns(random: () => number, runs: number, prefix: string): Buffer {
  let current = id(random, prefix);
  const out = [`{"type":"system","subtype":"init","session_id":"${current}"}\r\n`];
  for (let run = 0; run < runs; run++) {
    for (let size = 0; size < 40_000;) {
      const line = `{"type":"assistant","message":{"text":"${words(random, 5 + Math.floor(random() * 50))}"},"session_id":"${current}"}\r\n`;
      out.push(line);
      size += line.length;
    }
    current = id(random, prefix);
    out.push(`{"type":"assistant","sess\x1b[1mion_id":"${current}"}\r\n`);
  }
  return Buffer.from(out.join(""));
}

/** A line of a stream-json run on `thread`, `session_id` last as Amp writes it. */
const streamLine = (thread: string, event: Record<string, unknown>): string => `${JSON.stringify({ ...event, parent_tool_use_id: null, session_id: thread })}\n`;
const toolId = (random: () => number): string => `toolu_${Math.floor(random() * 2 ** 48).toString(36)}`;
const said = (text: string): Record<string, unknown> => ({ type: "assistant", message: { type: "message", role: "assistant", content: [{ type: "text", text }] } });

/** Rounds of shell tool calls on `thread`, then a line of text: exactly `bytes` bytes of lines. */
function toolRounds(random: () => number, thread: string, bytes: number): string[] {
  const lines: string[] = [];
  let left = bytes;
  for (;;) {
    const id = toolId(random);
    const output = Array.from({ length: 1 + Math.floor(random() * 40) }, () => `src/worker.ts:${Math.floor(random() * 900)}: ${words(random, 3 + Math.floor(random() * 12))}`).join("\n");
    const round = [
      streamLine(thread, { type: "assistant", message: { type: "message", role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command: `rg -n ${words(random, 1)} src` } }] } }),
      streamLine(thread, { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] } }),
    ];
    const size = Buffer.byteLength(round.join(""));
    // Room kept for the line of text that makes the count exact.
    if (size + 512 > left) break;
    lines.push(...round);
    left -= size;
  }
  const room = left - Buffer.byteLength(streamLine(thread, said("")));
  if (room < 0) throw new Error(`${bytes} bytes are too few for a line of text`);
  lines.push(streamLine(thread, said("Checking the next file. ".repeat(Math.ceil(room / 24)).slice(0, room))));
  return lines;
}

/**
 * `amp -x --stream-json` runs logged one after another, each on a thread of its own, in Claude
 * Code's stream-json shape, which Amp's copies (fixtures/amp/stream-basic): init, the prompt, tool
 * calls, and `result` last, the one line that confirms the thread. Early in each run comes a
 * WebFetch result whose structured output (`tool_use_result`) has a `result` key, as Claude Code's
 * WebFetch output does ({bytes, code, codeText, result, durationMs, url}: sam-fakhreddine/yepanywhere,
 * docs/research/claude-message-format-enhanced.md at e9916f78): its bytes hold every confirming value
 * of Amp's rules, and it confirms nothing. `before` is a run's bytes up to the end of that line,
 * `after` its bytes from there to the end of its `result` line, both exact, so that a test can put
 * them where a worker's reads end.
 */
export function lookAlikeRuns(random: () => number, runs: ReadonlyArray<{ readonly before: number; readonly after: number }>): Buffer {
  return Buffer.from(runs.map(({ before, after }) => {
    const thread = id(random, "T-");
    const fetch = toolId(random);
    const url = "https://example.com/docs/retries";
    const summary = "Retry with exponential backoff and full jitter, capped at 30 s.";
    const opening = [
      `${JSON.stringify({ type: "system", subtype: "init", cwd: "/home/coder/project", session_id: thread, tools: ["Bash", "Read", "WebFetch"], mcp_servers: [] })}\n`,
      streamLine(thread, { type: "user", message: { role: "user", content: [{ type: "text", text: `Read ${url} and fix the backoff in src/worker.ts` }] } }),
    ];
    const fetched = [
      streamLine(thread, { type: "assistant", message: { type: "message", role: "assistant", content: [{ type: "tool_use", id: fetch, name: "WebFetch", input: { url, prompt: "How should a worker retry?" } }] } }),
      streamLine(thread, {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: fetch, content: summary }] },
        tool_use_result: { bytes: 18230, code: 200, codeText: "OK", result: summary, durationMs: 800, url },
      }),
    ];
    const result = `${JSON.stringify({ type: "result", subtype: "success", duration_ms: 66000, is_error: false, num_turns: 12, result: "Fixed.", session_id: thread })}\n`;
    const bytes = (lines: readonly string[]): number => Buffer.byteLength(lines.join(""));
    return [
      ...opening,
      ...toolRounds(random, thread, before - bytes(opening) - bytes(fetched)),
      ...fetched,
      ...toolRounds(random, thread, after - bytes([result])),
      result,
    ].join("");
  }).join(""));
}
