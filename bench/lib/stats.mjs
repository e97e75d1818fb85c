/**
 * Figures drawn from repeated runs: a median, a percentile, and how far a median can be trusted.
 */

/** Percentile (nearest rank) of a numeric array. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** The middle value (mean of the two middle ones for an even count). */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The range that holds the median of what the samples were drawn from with at least `confidence`:
 * the k-th lowest and the k-th highest sample, k as large as that allows. Each sample falls below
 * the true median with odds of one half, so the chance that fewer than k do is a binomial tail.
 * Nothing is assumed of the spread's shape: a busy machine's rounds have long tails, and a mean
 * and a standard deviation would read them as a narrower spread than there is.
 * `coverage` is what the range reaches: below `confidence` only when there are too few samples
 * (fewer than 6 for 0.95), and then the range is the lowest to the highest. Undefined for none.
 */
export function medianInterval(values, confidence = 0.95) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return undefined;
  // below: the chance that at most k - 1 of n samples fall below the median.
  let k = 1;
  let term = 0.5 ** n;
  let below = term;
  while (k + 1 <= (n + 1) / 2) {
    const next = (term * (n - k + 1)) / k;
    if (1 - 2 * (below + next) < confidence) break;
    term = next;
    below += next;
    k++;
  }
  return { low: sorted[k - 1], high: sorted[n - k], coverage: Math.max(0, 1 - 2 * below) };
}
