/** A seeded PRNG (mulberry32): a failing chunking can be replayed from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
