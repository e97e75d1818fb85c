import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";

/**
 * Runs `file` with sessionpin out of the way, as a shim does for a call that opens no
 * conversation (`amp --version`) or when sessionpin cannot pin: the child gets this process's
 * own stdin, stdout and stderr (the same bytes, nothing in between), and this process ends as
 * the child ended, with its exit code or by its signal. Node 20 has no execve, hence a child.
 */
export function runDirect(file: string, args: readonly string[]): Promise<never> {
  return new Promise<never>(() => {
    // Every signal is passed on, SIGINT too: agentapi stops what it started with a SIGINT to that
    // pid alone (then SIGKILL 5 s later). A ^C typed at a terminal reaches the child by itself as
    // well, as a second one, but only in line mode: a TUI reads ^C as a key, no signal is sent.
    // Listened for before the spawn: the child can print, and its caller signal this process,
    // before spawn returns, and a signal with no listener yet would end this process by itself.
    // Node runs the listeners on a later turn, once `child` is set.
    let child: ChildProcess | undefined;
    const relayed = (["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"] as const).map((signal) => {
      const handler = (): void => void child?.kill(signal);
      process.on(signal, handler);
      return [signal, handler] as const;
    });
    child = spawn(file, args, { stdio: "inherit" });
    child.on("error", (error: NodeJS.ErrnoException) => {
      process.stderr.write(`sessionpin: ${file}: ${error.message}\n`);
      process.exit(error.code === "ENOENT" ? 127 : 126);
    });
    child.on("exit", (code, signal) => {
      for (const [name, handler] of relayed) process.off(name, handler);
      if (signal === null) process.exit(code ?? 1);
      // Ended by the same signal, so a caller's shell sees what it would have seen of the agent.
      process.kill(process.pid, signal);
      // A signal whose default is not to end (one a shell ignores): the code a shell gives it.
      process.exit(128 + (constants.signals[signal] ?? 0));
    });
  });
}
