import { describe, expect, it } from "vitest";
import { PromptTyper, QuietTrigger } from "../../src/run/prompt.js";
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

describe("PromptTyper", () => {
  it("pastes the prompt in bracketed-paste markers once the screen is still, then presses Enter once the echo settled", () => {
    const clock = new ManualClock();
    const written: string[] = [];
    const typer = new PromptTyper(clock, (data) => void written.push(data), "line one\nline two", { quietMs: 1_500, maxWaitMs: 20_000 });
    typer.start();
    typer.activity();
    clock.advance(1_500);
    expect(written).toEqual(["\x1b[200~line one\nline two\x1b[201~"]);
    // The agent echoes the paste for a while: Enter waits for it to settle.
    for (let i = 0; i < 5; i++) {
      clock.advance(200);
      typer.activity();
    }
    expect(written).toHaveLength(1);
    clock.advance(299);
    expect(written).toHaveLength(1);
    clock.advance(1);
    expect(written).toEqual(["\x1b[200~line one\nline two\x1b[201~", "\r"]);
    clock.advance(60_000);
    expect(written).toHaveLength(2);
  });

  it("presses Enter 300 ms after the paste when nothing is echoed, and after 3 s at most while the screen never settles", () => {
    const clock = new ManualClock();
    const silent: string[] = [];
    const quiet = new PromptTyper(clock, (data) => void silent.push(data), "go", { quietMs: 10, maxWaitMs: 100 });
    quiet.start();
    clock.advance(100);
    clock.advance(300);
    expect(silent).toEqual(["\x1b[200~go\x1b[201~", "\r"]);

    const busy: string[] = [];
    const spinner = new PromptTyper(clock, (data) => void busy.push(data), "go", { quietMs: 10, maxWaitMs: 100 });
    spinner.start();
    clock.advance(100);
    for (let t = 0; t < 2_900; t += 100) {
      spinner.activity();
      clock.advance(100);
    }
    expect(busy).toHaveLength(1);
    clock.advance(100);
    expect(busy).toEqual(["\x1b[200~go\x1b[201~", "\r"]);
  });
});
