import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// termios: ICANON in c_lflag; VEOF's index in c_cc (Linux).
const ICANON = 0o2;
const VEOF = 4;
// read(2)'s number, as /proc/<pid>/syscall shows it.
const READ: Partial<Record<NodeJS.Architecture, number>> = { x64: 0, arm64: 63, arm: 3, ia32: 3 };
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 1000;

/**
 * Gives the agent end-of-file once our input ended (a pipe or a file), as a user at a terminal
 * types ^D: when one of its processes waits in read(2) on its terminal while it reads lines
 * (canonical mode); twice after a line in progress, whose end the first one only makes. `cat`,
 * `wc`, a shell's `read`, and each later reader (`cat; wc -l`) so end: a process gets one ^D,
 * so none piles up for one that has not taken its own yet. A TUI reads keys in raw mode, without
 * waiting in read: a ^D queued for it before it went raw would reach it as a key (Ctrl-D quits
 * some), so it gets none. Returns the cancel (the agent exited).
 */
export function endInputOnceRead(pid: number, device: string, write: (data: Buffer) => void, lineOpen: boolean): () => void {
  let timer: NodeJS.Timeout | undefined;
  let open = lineOpen;
  const ended = new Set<number>();
  // Looked at soon, then less and less often: an agent busy with its output pays next to nothing.
  const look = (delay: number): void => {
    timer = setTimeout(() => {
      const readers = readersOf(pid, device);
      const eof = readers.some((reader) => !ended.has(reader)) ? canonicalEof(device) : undefined;
      if (eof === undefined) return look(Math.min(delay * 2, MAX_POLL_MS));
      write(Buffer.from(open ? [eof, eof] : [eof]));
      open = false;
      for (const reader of readers) ended.add(reader);
      look(FIRST_POLL_MS);
    }, delay);
    timer.unref();
  };
  look(FIRST_POLL_MS);
  return () => clearTimeout(timer);
}

/** The processes of the terminal's foreground group, in the agent's tree, that wait in read(2) on it. */
function readersOf(pid: number, device: string): number[] {
  const read = READ[process.arch];
  if (read === undefined) return [];
  const members = treeOf(pid).map((member) => ({ member, stat: statOf(member) }));
  // The agent's own stat (the tree's first) names the terminal's foreground group.
  const foreground = members[0]?.stat?.tpgid;
  if (foreground === undefined) return [];
  return members.filter(({ member, stat }) => {
    if (stat?.pgrp !== foreground) return false;
    const [nr, fd] = text(`/proc/${member}/syscall`).split(" ");
    if (Number(nr) !== read || fd === undefined) return false;
    try {
      return readlinkSync(`/proc/${member}/fd/${Number.parseInt(fd, 16)}`) === device;
    } catch {
      return false;
    }
  }).map(({ member }) => member);
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
