import { errnoCode, EXIT, reasonOf } from "../errors.js";

/**
 * A command's stdout that cannot be written ends the command: quietly, with exit 0, when its
 * reader went away (`explain … | head -1`), as grep ends there (by SIGPIPE, which Node ignores:
 * here the write fails with EPIPE); in one line, with exit 1, otherwise (a full disk, /dev/full).
 */
export function endWhenOutputFails(): void {
  process.stdout.once("error", (error) => {
    const readerGone = errnoCode(error) === "EPIPE";
    if (!readerGone) process.stderr.write(`sessionpin: cannot write the output: ${reasonOf(error)}\n`);
    process.exit(readerGone ? EXIT.ok : EXIT.failure);
  });
}

/**
 * Exits with `code` once stdout and stderr hold nothing unwritten. Node writes to a pipe in the
 * background: exiting at once dropped what a slow reader had not taken yet (`explain | grep`
 * lost most lines). An empty write's callback runs once everything before it is written ('drain'
 * comes only after a write was refused). A write error, reported a turn later, comes first
 * (endWhenOutputFails).
 */
export function exitWhenWritten(code: number): void {
  // A stream that failed or closed takes nothing more, and says no more either.
  const written = [process.stdout, process.stderr]
    .filter((stream) => stream.writableLength > 0 && !stream.destroyed)
    .map((stream) => new Promise((resolve) => {
      stream.write("", resolve);
      stream.once("error", resolve);
      stream.once("close", resolve);
    }));
  void Promise.all(written).then(() => setImmediate(() => process.exit(code)));
}
