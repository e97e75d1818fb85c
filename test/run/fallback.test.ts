import { describe, expect, it } from "vitest";
import { amp } from "../../src/agents/amp.js";
import { auggie } from "../../src/agents/auggie.js";
import { claude } from "../../src/agents/claude.js";
import { codex } from "../../src/agents/codex.js";
import { RejectionWatch } from "../../src/run/fallback.js";

const exit = (code: number, now: number, signalledByUs = false, signal = 0) => ({ code, signal, now, signalledByUs });

describe("RejectionWatch", () => {
  it("calls the ID rejected when the agent prints a rejection text within the window", () => {
    const watch = new RejectionWatch(amp, 15_000, 0);
    expect(watch.observe("Error: Thread T-1 does not exist.", 200)).toBe(true);
    expect(watch.verdict(exit(1, 300))).toMatch(/amp printed .*does not exist/);
  });

  it("calls a non-zero exit within the window a rejection, but not one after it", () => {
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(1, 14_999))).toMatch(/exited with 1 after 14999 ms/);
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(1, 15_000))).toBeUndefined();
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(0, 10))).toBeUndefined();
  });

  it("ignores rejection texts after the window or after the agent accepted the session", () => {
    const late = new RejectionWatch(amp, 15_000, 0);
    expect(late.observe("Thread not found", 16_000)).toBe(false);
    const accepted = new RejectionWatch(amp, 15_000, 0);
    accepted.accept();
    expect(accepted.observe("Thread not found", 10)).toBe(false);
    expect(accepted.verdict(exit(1, 20))).toBeUndefined();
  });

  it("keeps the ID when the agent caught a stop signal sent to it directly and exited 128+N", () => {
    for (const code of [129, 130, 131, 137, 143]) expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(code, 100)), String(code)).toBeUndefined();
    // Any other error code within the window is still the agent's refusal.
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(2, 100))).toMatch(/exited with 2/);
  });

  it("keeps the ID when the failure is transient (offline) or the exit followed our signal", () => {
    const offline = new RejectionWatch(amp, 15_000, 0);
    offline.observe("Error: Cannot reach Amp servers. Are you offline?", 10);
    expect(offline.verdict(exit(1, 20))).toBeUndefined();
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(130, 20, true))).toBeUndefined();
  });

  it("the agent's own word that the session is unknown outranks failures printed before it", () => {
    // Auggie 0.36 offline: `fetch failed` warnings first, then its local lookup refuses the ID.
    const watch = new RejectionWatch(auggie, 15_000, 0);
    expect(watch.observe("Warning: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)", 10)).toBe(false);
    expect(watch.observe("Error: Failed to resume session: No session found matching '0f3c2a9e-5b7d-4e21-9c4a-8d6f1e2b3a40'.", 20)).toBe(true);
    expect(watch.verdict(exit(1, 30))).toMatch(/No session found matching/);
  });

  it("for an agent that says when it refuses an ID, only its words reject: an early error exit it did not foresee as transient keeps the ID", () => {
    // Codex 0.169 `exec resume` against an API answering 500: thread.started with the resumed ID, then exit 1.
    const failed = new RejectionWatch(codex, 15_000, 0);
    expect(failed.observe("ERROR: unexpected status 500 Internal Server Error", 200)).toBe(false);
    expect(failed.verdict(exit(1, 460))).toBeUndefined();
    // Claude 2.1.330 -p (text) against an API answering 400.
    expect(new RejectionWatch(claude, 15_000, 0).verdict(exit(1, 900))).toBeUndefined();
    const refused = new RejectionWatch(codex, 15_000, 0);
    expect(refused.observe("thread/resume failed: no rollout found for thread id 019a-…", 300)).toBe(true);
    expect(refused.verdict(exit(1, 400))).toMatch(/codex printed .*no rollout found/);
    // A plugin that claims to say so but names no words: its early exits still count.
    expect(new RejectionWatch({ ...codex, rejected: [] }, 15_000, 0).verdict(exit(1, 460))).toMatch(/exited with 1/);
    // Amp's words for an unknown thread were never seen from the real CLI: its early exits still count.
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(1, 460))).toMatch(/exited with 1/);
  });

  it("never calls a death by signal a rejection: the agent crashed or was stopped", () => {
    expect(new RejectionWatch(amp, 15_000, 0).verdict(exit(0, 20, false, 9))).toBeUndefined();
  });
});
