import { describe, expect, it } from "vitest";
import type { OutputStream } from "../../src/pty/host.js";
import { HeldStdout, Sinks, type EventOf, type Sink } from "../../src/run/sinks.js";

const output = (text: string, stream: OutputStream = "stdout"): EventOf<"output"> => ({ kind: "output", chunk: Buffer.from(text), stream });

describe("Sinks", () => {
  it("hands each event to every sink that takes its kind, in the sinks' order, as a method of the sink", () => {
    const heard: string[] = [];
    class Named implements Sink {
      constructor(readonly name: string) {}
      output(event: EventOf<"output">): void {
        heard.push(`${this.name} output ${event.chunk.toString()}`);
      }
      resize(event: EventOf<"resize">): void {
        heard.push(`${this.name} resize ${event.cols}x${event.rows}`);
      }
    }
    const onlyExit: Sink = { exit: () => void heard.push("exit") };
    const sinks = new Sinks([new Named("a"), onlyExit, new Named("b")]);
    sinks.emit(output("hi"));
    sinks.emit({ kind: "exit" });
    sinks.emit({ kind: "resize", cols: 67, rows: 20 });
    sinks.emit({ kind: "input", chunk: Buffer.from("x") });
    expect(heard).toEqual(["a output hi", "b output hi", "exit", "a resize 67x20", "b resize 67x20"]);
  });

  it("says whether any sink takes a kind, so what nobody takes need not be made", () => {
    const sinks = new Sinks([{ exit: () => undefined }, { output: () => undefined }]);
    expect(sinks.takes("exit")).toBe(true);
    expect(sinks.takes("output")).toBe(true);
    expect(sinks.takes("trace")).toBe(false);
    expect(new Sinks([]).takes("output")).toBe(false);
  });
});

describe("HeldStdout", () => {
  function held(): { sink: HeldStdout; written: Array<[OutputStream, string]> } {
    const written: Array<[OutputStream, string]> = [];
    return { sink: new HeldStdout((chunk, stream) => void written.push([stream, chunk.toString()])), written };
  }

  it("holds stdout, never stderr, until the session shows: then what was held goes out first, and the rest as it comes", () => {
    const { sink, written } = held();
    sink.output(output("answer "));
    sink.output(output("warning\n", "stderr"));
    sink.output(output("part 2"));
    expect(written).toEqual([["stderr", "warning\n"]]);
    sink.release("stdout");
    sink.output(output(" part 3"));
    expect(written).toEqual([["stderr", "warning\n"], ["stdout", "answer "], ["stdout", "part 2"], ["stdout", " part 3"]]);
  });

  it("sends what it held to stderr when the ID was rejected: a refused attempt's output is no answer", () => {
    const { sink, written } = held();
    sink.output(output("Error: no conversation found\n"));
    sink.release("stderr");
    // Released once: a later release moves nothing, and stdout passes straight on.
    sink.release("stdout");
    sink.output(output("the new session's answer\n"));
    expect(written).toEqual([["stderr", "Error: no conversation found\n"], ["stdout", "the new session's answer\n"]]);
  });

  it("lets stdout go once it has held more than 1 MiB, in order, and holds nothing after", () => {
    const { sink, written } = held();
    const half = "x".repeat(512 * 1024);
    sink.output(output(half));
    sink.output(output(half));
    expect(written).toEqual([]);
    sink.output(output("y"));
    expect(written.map(([stream, text]) => [stream, text.length])).toEqual([["stdout", half.length], ["stdout", half.length], ["stdout", 1]]);
    sink.output(output("z"));
    expect(written.at(-1)).toEqual(["stdout", "z"]);
  });

  it("is a sink: Sinks hands it the output events", () => {
    const { sink, written } = held();
    const sinks = new Sinks([sink]);
    sinks.emit(output("held"));
    sinks.emit(output("err", "stderr"));
    sink.release("stdout");
    expect(written).toEqual([["stderr", "err"], ["stdout", "held"]]);
  });
});
