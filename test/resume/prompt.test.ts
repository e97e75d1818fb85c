import { describe, expect, it } from "vitest";
import { QuietTrigger, typePrompt } from "../../src/resume/prompt.js";
import { ManualClock } from "../helpers/clock.js";

describe("QuietTrigger", () => {
  it("fires once output has been quiet for the quiet period, not before", () => {
    const clock = new ManualClock();
    let fired = 0;
    const trigger = new QuietTrigger(clock, 1500, 20_000, () => fired++);
    trigger.start();
    clock.advance(1000);
    trigger.activity();
    clock.advance(1000);
    expect(fired).toBe(0);
    clock.advance(500);
    expect(fired).toBe(1);
    trigger.activity();
    clock.advance(5000);
    expect(fired).toBe(1);
  });

  it("starts the quiet period at the agent's first output, not at spawn", () => {
    const clock = new ManualClock();
    let fired = 0;
    const trigger = new QuietTrigger(clock, 300, 20_000, () => fired++);
    trigger.start();
    clock.advance(5000);
    expect(fired).toBe(0);
    trigger.activity();
    clock.advance(300);
    expect(fired).toBe(1);
  });

  it("fires at the maximum wait when output never stops, or never starts", () => {
    const clock = new ManualClock();
    let fired = 0;
    const trigger = new QuietTrigger(clock, 1500, 20_000, () => fired++);
    trigger.start();
    for (let t = 0; t < 19_900; t += 100) {
      clock.advance(100);
      trigger.activity();
    }
    expect(fired).toBe(0);
    clock.advance(100);
    expect(fired).toBe(1);
  });

  it("never fires once cancelled", () => {
    const clock = new ManualClock();
    let fired = 0;
    const trigger = new QuietTrigger(clock, 10, 100, () => fired++);
    trigger.start();
    trigger.cancel();
    clock.advance(1000);
    expect(fired).toBe(0);
  });
});

describe("typePrompt", () => {
  it("pastes the prompt in bracketed-paste markers, then presses Enter separately", () => {
    const clock = new ManualClock();
    const written: string[] = [];
    typePrompt((data) => written.push(data), "line one\nline two", clock);
    expect(written).toEqual(["\x1b[200~line one\nline two\x1b[201~"]);
    clock.advance(100);
    expect(written).toEqual(["\x1b[200~line one\nline two\x1b[201~", "\r"]);
  });
});
