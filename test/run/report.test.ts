import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { postHere } from "../../src/notify/post.js";
import { Notifier } from "../../src/notify/webhook.js";
import { CastRecorder } from "../../src/record/asciicast.js";
import { LineFile } from "../../src/record/line-file.js";
import { recordingSink, traceSink, webhookSink } from "../../src/run/report.js";
import { Sinks } from "../../src/run/sinks.js";
import { closeReceivers, memoryLog, serve, status } from "../helpers/webhook-receiver.js";
import { useTempDir } from "../pointer/tempdir.js";

const tmp = useTempDir();
afterEach(closeReceivers);

const A = "T-0a1b2c3d-0000-4000-8000-00000000000a";
const B = "T-0a1b2c3d-0000-4000-8000-00000000000b";
const taken = { kind: "taken", rule: "chosen-up-front", id: A, state: "provisional" } as const;

const lines = (path: string): unknown[] => readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as unknown);

describe("recordingSink", () => {
  it("records output, typed input, resizes and markers as asciicast v2 events, and nothing else", () => {
    const path = join(tmp.path, "run.cast");
    let now = 1_764_000_000_000;
    const recorder = CastRecorder.open(path, { width: 80, height: 24, command: "amp", env: {} }, { log: memoryLog(), withInput: true, now: () => now });
    if (recorder === undefined) throw new Error("no recorder");
    const sinks = new Sinks([recordingSink(recorder)]);
    sinks.emit({ kind: "output", chunk: Buffer.from("hello"), stream: "stdout" });
    now += 500;
    sinks.emit({ kind: "input", chunk: Buffer.from("y\r") });
    sinks.emit({ kind: "resize", cols: 100, rows: 30 });
    sinks.emit({ kind: "marker", label: `sessionpin: ${A}`, plugin: "amp", verdict: taken });
    sinks.emit({ kind: "trace", entry: { line: 1, text: "x", plugin: "amp", rule: "r", outcome: "taken" } });
    sinks.emit({ kind: "rejected", agent: "amp", id: A, reason: "no such thread" });
    recorder.close();
    const [header, ...events] = lines(path);
    expect(header).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(events).toEqual([[0, "o", "hello"], [0.5, "i", "y\r"], [0.5, "r", "100x30"], [0.5, "m", `sessionpin: ${A}`]]);
  });

  it("takes only output, input, resize and marker", () => {
    expect(Object.keys(recordingSink({} as CastRecorder)).sort()).toEqual(["input", "marker", "output", "resize"]);
  });
});

describe("traceSink", () => {
  it("writes each trace entry as it comes, and a marker as a line 0 with its verdict", () => {
    const path = join(tmp.path, "trace.jsonl");
    const file = LineFile.open(path, memoryLog());
    if (file === undefined) throw new Error("no trace file");
    const sinks = new Sinks([traceSink(file)]);
    const entry = { line: 3, time: 1.5, text: `thread ${A}`, plugin: "amp", rule: "url", outcome: "taken", state: "confirmed", value: A } as const;
    sinks.emit({ kind: "trace", entry });
    sinks.emit({ kind: "marker", label: "sessionpin: chosen", plugin: "claude", verdict: taken });
    sinks.emit({ kind: "marker", label: "sessionpin: refused", plugin: "claude", verdict: { kind: "refused", rule: "chosen-up-front", reason: "grammar", value: "nope" } });
    sinks.emit({ kind: "output", chunk: Buffer.from("not traced"), stream: "stdout" });
    file.close();
    expect(lines(path)).toEqual([
      entry,
      { line: 0, time: 0, text: "sessionpin: chosen", plugin: "claude", rule: "chosen-up-front", outcome: "taken", state: "provisional", value: A },
      { line: 0, time: 0, text: "sessionpin: refused", plugin: "claude", rule: "chosen-up-front", outcome: "refused", value: "nope", reason: "grammar mismatch" },
    ]);
  });
});

// Posted from the test's own thread: the webhook thread is post-thread.test.ts's concern.
describe("webhookSink", () => {
  it("POSTs what happened to the pinned ID, with where it is kept and when", async () => {
    const receiver = await serve(status(204));
    const notifier = new Notifier([receiver.url], memoryLog(), { post: postHere });
    const time = new Date("2026-01-02T03:04:05.000Z");
    const place = { cwd: "/w/app", pointer: "/s/pointer.json", key: "pr-7" };
    const sinks = new Sinks([webhookSink(notifier, place, () => time)]);
    const pinnedA = { id: A, state: "provisional", rule: "url" } as const;
    const pinnedB = { id: B, state: "confirmed", rule: "url" } as const;
    sinks.emit({ kind: "pin", agent: "amp", pin: { kind: "captured", pinned: pinnedA } });
    sinks.emit({ kind: "pin", agent: "amp", pin: { kind: "changed", pinned: pinnedB, previous: pinnedA } });
    sinks.emit({ kind: "resumed", agent: "amp", id: B, delivers: "follow-up" });
    sinks.emit({ kind: "rejected", agent: "amp", id: B, reason: "thread not found" });
    sinks.emit({ kind: "output", chunk: Buffer.from("not sent"), stream: "stdout" });
    await notifier.settled(10_000);
    const common = { agent: "amp", cwd: "/w/app", pointer: "/s/pointer.json", key: "pr-7", time: "2026-01-02T03:04:05.000Z" };
    expect(receiver.received.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { kind: "captured", id: A, ...common },
      { kind: "changed", id: B, ...common, previous: A },
      { kind: "resumed", id: B, ...common, delivers: "follow-up" },
      { kind: "rejected", id: B, ...common, previous: B, reason: "thread not found" },
    ]);
  });

  it("leaves the key out when the run named none", async () => {
    const receiver = await serve(status(200));
    const notifier = new Notifier([receiver.url], memoryLog(), { post: postHere });
    new Sinks([webhookSink(notifier, { cwd: "/w", pointer: "/p", key: undefined }, () => new Date(0))])
      .emit({ kind: "resumed", agent: "claude", id: A, delivers: null });
    await notifier.settled(10_000);
    expect(receiver.received.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { kind: "resumed", agent: "claude", id: A, cwd: "/w", pointer: "/p", time: "1970-01-01T00:00:00.000Z", delivers: null },
    ]);
  });
});
