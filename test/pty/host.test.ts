/**
 * spawnAgent's end of a run, through a real PTY: everything an agent printed just before it
 * exited arrives, whole and in order, before its exit is reported; that it is reported without
 * node-pty's 200 ms socket timer is the bench's to show (section 9 and start-up).
 */
import { describe, expect, it } from "vitest";
import { spawnAgent } from "../../src/pty/host.js";

function runToExit(script: string): Promise<{ output: Buffer; status: { exitCode: number; signal: number } }> {
  const agent = spawnAgent(["sh", "-c", script], { cols: 80, rows: 24, cwd: process.cwd(), env: process.env });
  const chunks: Buffer[] = [];
  agent.onData((chunk) => chunks.push(Buffer.from(chunk)));
  return agent.exited.then((status) => ({ output: Buffer.concat(chunks), status }));
}

describe("the end of an agent's run", () => {
  it.each([1, 4_100, 70_000, 400_000])("delivers all of %i bytes printed at once before exiting, then the exit", async (bytes) => {
    for (let round = 0; round < 5; round++) {
      // `stty raw -echo`: the bytes arrive as written (no CRLF), so they can be counted exactly.
      const { output, status } = await runToExit(`stty raw -echo; head -c ${bytes} /dev/zero | tr '\\0' 'x'; printf '#end'; exit 5`);
      expect(output.length, `round ${round}`).toBe(bytes + 4);
      expect(output.subarray(-4).toString()).toBe("#end");
      expect(status).toEqual({ exitCode: 5, signal: 0 });
    }
  }, 60_000);

  it("still reports the exit while a child it left keeps the terminal open", async () => {
    const { output, status } = await runToExit(`stty raw -echo; (sleep 0.05; printf late; sleep 2) & printf early; exit 3`);
    expect(status).toEqual({ exitCode: 3, signal: 0 });
    // The kernel hangs the terminal up when its session leader (the agent) exits: the child's
    // later writes fail, with or without sessionpin.
    expect(output.toString()).toBe("early");
  }, 20_000);
});
