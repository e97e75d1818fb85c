// Loaded with NODE_OPTIONS=--import=… by passthrough.test.ts: delays the fake Amp's interactive
// runs (not `threads new`) by $SLOW_START_MS before any of its code runs, like a real agent that
// takes a while to draw its first screen. Other node processes (sessionpin itself) are untouched.
const script = process.argv[1] ?? "";
if (script.endsWith("fake-amp.js") && !process.argv.slice(2).includes("new")) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.SLOW_START_MS ?? "1500"));
}
