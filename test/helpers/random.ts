export { seeded } from "./seeded.mjs";

/** `bytes` cut at random places, sometimes into single bytes. */
export function randomChunks(bytes: Buffer, random: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = random() < 0.3 ? 1 : 1 + Math.floor(random() * 64);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}
