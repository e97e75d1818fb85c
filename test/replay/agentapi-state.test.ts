import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { agentapiMessages, MAX_MESSAGE_BYTES } from "../../src/replay/agentapi-state.js";
import { openSource } from "../../src/replay/sources.js";
import { randomChunks, seeded } from "../helpers/random.js";
import { ROOT } from "../helpers/sandbox.js";

let dir = "";
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

/** What the reader yields for `bytes` handed over in `chunks`: each agent message's text and time. */
async function read(chunks: readonly Buffer[]): Promise<Array<[string, number | undefined]>> {
  const out: Array<[string, number | undefined]> = [];
  for await (const chunk of agentapiMessages(Readable.from(chunks.map((c) => Buffer.from(c))), "state.json")) out.push([chunk.data.toString(), chunk.time]);
  return out;
}

/** The same, worked out as before streaming: the whole file parsed, agent messages in order. */
function parsedWhole(text: string): Array<[string, number | undefined]> {
  const state = JSON.parse(text.replace(/^\uFEFF/, "")) as { messages: Array<{ message: string; role: string; time?: string }> };
  const agent = state.messages.filter((m) => m.role === "agent");
  const start = Date.parse(agent[0]?.time ?? "");
  return agent.map((m) => {
    const at = Date.parse(m.time ?? "");
    // As capture encodes it: a lone surrogate half is U+FFFD.
    return [Buffer.from(`${m.message}\n`).toString(), Number.isFinite(at) && Number.isFinite(start) ? (at - start) / 1000 : undefined];
  });
}

const failure = (text: string): Promise<string> => read([Buffer.from(text)]).then(() => "read", (error: unknown) => (error as Error).message);

describe("agentapi's state file, read as it streams", () => {
  it("gives what parsing the whole file gave, however the file is cut into reads", async () => {
    const random = seeded(43);
    const fixtures = readdirSync(join(ROOT, "fixtures/agentapi-state"), { withFileTypes: true }).filter((e) => e.isDirectory())
      .map((e) => readFileSync(join(ROOT, "fixtures/agentapi-state", e.name, "state.json"), "utf8"));
    const made = {
      version: 1,
      skipped: { deep: [[[{ "a]": "}" }]], -1.5e3, true, null], s: "\"]}" },
      messages: [
        { id: 0, message: "tab\there \"quoted\" back\\slash \u00e9 \ud83d\ude00 \u2028 \u001b[31mred\u001b[0m", role: "agent", time: "2026-11-20T09:00:00.2Z" },
        { id: 1, message: "a user's", role: "user", time: "2026-11-20T09:00:01Z" },
        { id: 2, message: "", role: "agent" },
        { id: 3, role: "agent", extra: { x: [1, 2, 3] }, message: "role first", time: "2026-11-20T09:00:09Z" },
      ],
      initial_prompt: "go",
    };
    const texts = [
      ...fixtures,
      JSON.stringify(made),
      JSON.stringify(made, null, 2),
      `\uFEFF${JSON.stringify(made, null, 4)}\n`,
      // Escapes JSON.stringify never writes: \/ and \u escapes, a surrogate pair, lone halves.
      '{"messages":[{"message":"\\/path \\u0041\\u00e9 \\ud83d\\ude00 \\ud800x \\udc00","role":"agent"}]}',
    ];
    for (const text of texts) {
      const bytes = Buffer.from(text);
      const whole = parsedWhole(text);
      expect(await read([bytes]), text.slice(0, 60)).toEqual(whole);
      for (let i = 0; i < 20; i++) expect(await read(randomChunks(bytes, random))).toEqual(whole);
    }
  });

  it("refuses what is no state file in one line that says where, and passes over any nesting it does not read", async () => {
    expect(await failure("\0\0\0")).toBe("sessionpin: state.json: not an agentapi state file (byte 0x00 at byte 0 where the state's opening { should be)");
    expect(await failure("")).toBe("sessionpin: state.json: not an agentapi state file (empty)");
    expect(await failure('{"messages":"no"}')).toBe("sessionpin: state.json: not an agentapi state file (its messages are not a list)");
    expect(await failure('{"messages":[{"message":5,"role":"agent"}]}')).toBe("sessionpin: state.json: not an agentapi state file (message 0: its message is not a string)");
    expect(await failure('{"messages":[{"message":"x"}]}')).toBe("sessionpin: state.json: not an agentapi state file (message 0 has no role)");
    expect(await failure('{"messages":[null]}')).toBe("sessionpin: state.json: not an agentapi state file (message 0 is not an object)");
    expect(await failure('{"version":1}')).toBe("sessionpin: state.json: not an agentapi state file (no messages)");
    expect(await failure('{"messages":[{"message":"x","role":"agent"}')).toBe("sessionpin: state.json: not an agentapi state file (it ends before its last message or field is whole)");
    expect(await failure('{"messages":[]} {}')).toBe('sessionpin: state.json: not an agentapi state file ("{" at byte 16 where nothing more should be)');
    // A field nested 200,000 deep is passed over up to its bound, never with a recursion.
    expect(await failure(`{"x":${"[".repeat(200_000)}1${"]".repeat(200_000)},"messages":[]}`)).toBe("sessionpin: state.json: not an agentapi state file (a field nested more than 10000 deep at byte 10005)");
    expect(await read([Buffer.from(`{"x":${"[".repeat(9_000)}1${"]".repeat(9_000)},"messages":[{"message":"ok","role":"agent"}]}`)])).toEqual([["ok\n", undefined]]);
    expect(await failure(`{"messages":[{"message":"${"x".repeat(MAX_MESSAGE_BYTES + 1)}","role":"agent"}]}`)).toBe("sessionpin: state.json: not an agentapi state file (message 0 is longer than 16 MiB)");
  });

  it("holds one message at a time: a 64 MB file of many messages is read in a few MB", async () => {
    dir = mkdtempSync(join(tmpdir(), "sessionpin-state-"));
    const path = join(dir, "state.json");
    const fd = openSync(path, "w");
    writeSync(fd, '{"version":1,"messages":[');
    const body = `${"x".repeat(1_000)}\\n`;
    for (let i = 0, size = 0; size < 64 * 2 ** 20; i++) {
      const message = `${i === 0 ? "" : ","}{"id":${i},"message":"${body}","role":"${i % 2 === 0 ? "agent" : "user"}","time":"2026-01-01T00:00:00Z"}`;
      writeSync(fd, message);
      size += message.length;
    }
    writeSync(fd, "]}\n");
    closeSync(fd);
    const source = await openSource(path, "agentapi-state");
    const before = process.memoryUsage();
    let peak = 0;
    let messages = 0;
    for await (const chunk of source.chunks) {
      messages++;
      if (messages % 1_000 === 0) {
        const now = process.memoryUsage();
        peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
      }
      expect(chunk.data.length).toBe(1_002);
    }
    expect(messages).toBeGreaterThan(30_000);
    // Parsed whole, the file's bytes, its text and the parsed messages were all held at once.
    expect(peak).toBeLessThan(32 * 2 ** 20);
  }, 60_000);
});
