/**
 * The PTY's output read into slabs of our own, 64 KiB each, one read after another, instead of
 * into the new 64 KiB buffer Node makes for every read of a stream. A PTY master gives at most
 * about 4 KiB a read (Linux's line discipline holds no more), so a flood is tens of thousands of
 * reads, and what Node does around each one (a buffer made, a Readable push, node-pty's events)
 * costs CPU on every one: a relay reading this way passed 1.03-1.04x the bytes a second of one on
 * node-pty's events, for 0.35-0.8 CPU s/GB less (bench/README, twelfth round).
 *
 * The way in is the one behind net.Socket's documented `onread` option (Node 12+): a buffer, or
 * a function giving the next one, that libuv reads into, and a callback for each read. node-pty
 * makes its socket itself, so the option is set on it afterwards, through the fields the option
 * sets; where they are not there (another Node) nothing is changed and node-pty's events serve.
 *
 * Chunks stay valid: a slab is never read into twice, and a chunk a consumer keeps (a write the
 * terminal queued) keeps its slab.
 */

const SLAB_BYTES = 64 * 1024;
// Room for a whole read of a PTY (4 KiB on Linux), with a margin; less than this left, a new slab.
const MIN_ROOM = 16 * 1024;

interface SocketHandle {
  useUserBuffer(buffer: Uint8Array): void;
}

/**
 * Makes `socket` (node-pty's reading socket) read into slabs and give each read to `deliver`.
 * False when this Node's sockets lack what it needs: then nothing was changed.
 */
export function readIntoSlabs(socket: unknown, deliver: (chunk: Buffer) => void): boolean {
  if (typeof socket !== "object" || socket === null) return false;
  const handle = (socket as { _handle?: Partial<SocketHandle> })._handle;
  const field = (name: string): symbol | undefined => Object.getOwnPropertySymbols(socket).find((s) => s.description === name);
  const buffer = field("kBuffer");
  const next = field("kBufferGen");
  const callback = field("kBufferCb");
  if (typeof handle?.useUserBuffer !== "function" || buffer === undefined || next === undefined || callback === undefined) return false;

  let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  let used = 0;
  const room = (): Buffer => {
    if (SLAB_BYTES - used < MIN_ROOM) {
      slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      used = 0;
    }
    return slab.subarray(used);
  };
  const fields = socket as Record<symbol, unknown>;
  fields[buffer] = room();
  fields[next] = room;
  fields[callback] = (bytes: number, into: Buffer): void => {
    used += bytes;
    deliver(into.subarray(0, bytes));
  };
  handle.useUserBuffer(fields[buffer] as Buffer);
  return true;
}
