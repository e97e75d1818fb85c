import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// termios: ICANON in c_lflag; VEOF's index in c_cc (Linux).
const ICANON = 0o2;
const VEOF = 4;
// read(2)'s number, as /proc/<pid>/syscall shows it.
const READ: Partial<Record<NodeJS.Architecture, number>> = { x64: 0, arm64: 63, arm: 3, ia32: 3 };
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 1000;
// Long enough for a command that reads its input after a while; not a poll for a whole session.
const GIVE_UP_MS = 30_000;

/**
 * Gives the agent end-of-file once our input ended (a pipe or a file), as a user at a terminal
 * types ^D: once one of its processes waits in read(2) on its terminal, and the terminal reads
 * lines (canonical mode); twice after a line in progress, whose end the first one only makes.
 * `cat`, `wc` and a shell's `read` so end. A TUI reads keys in raw mode, without waiting in read:
 * a ^D queued for it before it went raw would reach it as a key (Ctrl-D quits some), so it gets
 * none. Returns the cancel (the agent exited).
 */
export function endInputOnceRead(pid: number, device: string, write: (data: Buffer) => void, lineOpen: boolean): () => void {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  // Looked at soon, then less and less often: an agent busy with its output pays next to nothing.
  const look = (delay: number): void => {
    timer = setTimeout(() => {
      if (Date.now() - started > GIVE_UP_MS) return;
      if (!waitsToRead(pid, device)) return look(Math.min(delay * 2, MAX_POLL_MS));
      const eof = canonicalEof(device);
      if (eof !== undefined) write(Buffer.from(lineOpen ? [eof, eof] : [eof]));
    }, delay);
    timer.unref();
  };
  look(FIRST_POLL_MS);
  return () => clearTimeout(timer);
}

/** Whether a process of the terminal's foreground group, in the agent's tree, waits in read(2) on it. */
function waitsToRead(pid: number, device: string): boolean {
  const read = READ[process.arch];
  const foreground = statOf(pid)?.tpgid;
  if (read === undefined || foreground === undefined) return false;
  return treeOf(pid).some((member) => {
    if (statOf(member)?.pgrp !== foreground) return false;
    const [nr, fd] = text(`/proc/${member}/syscall`).split(" ");
    if (Number(nr) !== read || fd === undefined) return false;
    try {
      return readlinkSync(`/proc/${member}/fd/${Number.parseInt(fd, 16)}`) === device;
    } catch {
      return false;
    }
  });
}

/** The process and its descendants. */
function treeOf(pid: number): number[] {
  const children = (parent: number): number[] => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return [];
    }
    return tasks.flatMap((task) => text(`/proc/${parent}/task/${task}/children`).split(" ").filter(Boolean).map(Number));
  };
  const all = [pid];
  for (let i = 0; i < all.length && all.length < 1000; i++) all.push(...children(all[i] as number));
  return all;
}

/** Process group and terminal foreground group from /proc/<pid>/stat (after the command's name, which may hold anything). */
function statOf(pid: number): { pgrp: number; tpgid: number } | undefined {
  const stat = text(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const pgrp = Number(fields[2]);
  const tpgid = Number(fields[5]);
  return Number.isInteger(pgrp) && Number.isInteger(tpgid) && tpgid > 0 ? { pgrp, tpgid } : undefined;
}

/** The terminal's EOF character while it reads lines; undefined in raw mode. */
function canonicalEof(device: string): number | undefined {
  // `stty -g`: c_iflag:c_oflag:c_cflag:c_lflag:c_cc[0]:c_cc[1]:…, in hex.
  const fields = (spawnSync("stty", ["-g", "-F", device], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).stdout ?? "").trim().split(":");
  const lflag = Number.parseInt(fields[3] ?? "", 16);
  const eof = Number.parseInt(fields[4 + VEOF] ?? "", 16);
  return Number.isInteger(lflag) && (lflag & ICANON) !== 0 && Number.isInteger(eof) && eof !== 0 ? eof : undefined;
}

function text(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}
