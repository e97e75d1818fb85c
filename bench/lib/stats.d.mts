export function percentile(values: readonly number[], p: number): number;
export function median(values: readonly number[]): number;
export function medianInterval(values: readonly number[], confidence?: number): { low: number; high: number; coverage: number } | undefined;
