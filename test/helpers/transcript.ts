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
