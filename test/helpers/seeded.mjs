/**
 * A seeded PRNG (mulberry32): a failing chunking can be replayed from its seed, and the bench's
 * children and driver make the same bytes without sharing state. Plain JavaScript, so the bench
 * (run by node without a build) and the tests use this one copy.
 */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
