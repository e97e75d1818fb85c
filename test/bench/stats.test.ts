import { describe, expect, it } from "vitest";
import { median, medianInterval } from "../../bench/lib/stats.mjs";
import { seeded } from "../helpers/random.js";

/** P(B <= j) for B ~ Binomial(n, 1/2), exactly. */
function binomialTail(n: number, j: number): number {
  let sum = 0n;
  let choose = 1n;
  for (let i = 0; i <= j; i++) {
    sum += choose;
    choose = (choose * BigInt(n - i)) / BigInt(i + 1);
  }
  return Number(sum) / 2 ** n;
}

describe("medianInterval", () => {
  it("takes the k-th lowest and highest sample, k the largest whose binomial tails leave 95 %", () => {
    for (let n = 1; n <= 80; n++) {
      const values = Array.from({ length: n }, (_, i) => (i * 7919) % n).map((v) => v * 0.01);
      const sorted = [...values].sort((a, b) => a - b);
      let k = 1;
      while (k + 1 <= (n + 1) / 2 && 1 - 2 * binomialTail(n, k) >= 0.95) k++;
      const got = medianInterval(values);
      expect(got, `n=${n}`).toEqual({ low: sorted[k - 1], high: sorted[n - k], coverage: expect.closeTo(Math.max(0, 1 - 2 * binomialTail(n, k - 1)), 12) });
    }
    expect(medianInterval([])).toBeUndefined();
  });

  it("holds the true median about as often as it says, on a long-tailed spread", () => {
    const random = seeded(7);
    // Rounds of a busy machine: most near 1, a tail of slow ones (the true median is 1).
    const round = (): number => (random() < 0.5 ? 1 - 0.3 * random() ** 3 : 1 + 0.1 * random());
    for (const [n, expected] of [[9, 0.961], [24, 0.977]] as const) {
      let held = 0;
      const trials = 4000;
      for (let t = 0; t < trials; t++) {
        const interval = medianInterval(Array.from({ length: n }, round));
        if (interval !== undefined && interval.low <= 1 && 1 <= interval.high) held++;
      }
      expect(held / trials, `n=${n}`).toBeGreaterThan(expected - 0.015);
      expect(held / trials, `n=${n}`).toBeLessThan(expected + 0.015);
    }
  });

  it("narrows as pairs are added", () => {
    const random = seeded(11);
    const width = (n: number): number => {
      let sum = 0;
      for (let t = 0; t < 500; t++) {
        const interval = medianInterval(Array.from({ length: n }, () => 0.9 + 0.2 * random()));
        sum += interval === undefined ? Infinity : interval.high - interval.low;
      }
      return sum / 500;
    };
    expect(width(24)).toBeLessThan(0.75 * width(9));
    expect(median([0.9, 1.1, 1])).toBe(1);
  });
});
