import { spawn } from "node:child_process";
import { constants } from "node:os";

/**
 * Runs `file` with sessionpin out of the way, as a shim does for a call that opens no
 * conversation (`amp --version`) or when sessionpin cannot pin: the child gets this process's
 * own stdin, stdout and stderr (the same bytes, nothing in between), and this process ends as
 * the child ended, with its exit code or by its signal. Node 20 has no execve, hence a child.
 */
export function runDirect(file: string, args: readonly string[]): Promise<never> {
  return new Promise<never>(() => {
    const child = spawn(file, args, { stdio: "inherit" });
    // In a terminal, ^C and ^\ reach the child from the terminal itself (it is in the foreground
    // process group with us): passed on as well, the agent would see a second ^C. Elsewhere only
    // this process is signalled, so everything is passed on.
    const fromTerminal = process.stdin.isTTY ? new Set(["SIGINT", "SIGQUIT"]) : new Set<string>();
    const relayed = (["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"] as const).map((signal) => {
      const handler = (): void => {
        if (!fromTerminal.has(signal)) child.kill(signal);
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
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
