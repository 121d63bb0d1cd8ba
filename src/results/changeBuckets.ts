// The change-point finder's buckets (changePoint.ts): a series averaged onto at most MAX_BUCKETS equal
// time buckets, each bucket's mean time, and the noise σ of one bucket from the first differences.

import type { QueryRange } from "./curves.js";
/** Buckets at most: the O(n²) spike search stays small. */
export const MAX_BUCKETS = 200;
const MAD_TO_SIGMA = 1.4826;

export interface Buckets {
  /** Each non-empty bucket's position: its samples' mean time, in bucket widths from the start. */
  x: Float64Array;
  /** Mean of each bucket's finite samples. */
  y: Float64Array;
  n: number;
  /** Seconds per bucket. */
  width: number;
  /** Each bucket's time of day as sine and cosine (windows of a day or more). */
  phases?: { sin: Float64Array; cos: Float64Array } | undefined;
}

/** The mean time of the index-th non-empty bucket's samples. */
export function centreOf({ x, width }: Buckets, range: QueryRange, index: number): number {
  return range.start + (x[index] as number) * width;
}

export function bucketed(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  count: number,
  range: QueryRange,
): Buckets | undefined {
  if (!(range.step > 0) || !(range.end >= range.start)) return undefined;
  const steps = Math.floor((range.end - range.start) / range.step) + 1;
  const perBucket = Math.ceil(steps / MAX_BUCKETS);
  const width = perBucket * range.step;
  const spanned = Math.ceil(steps / perBucket);
  // A last bucket of less than half the others is left out: its mean, of a few samples, is far noisier
  // than σ (one sample of 36: 6σ), and a change fitted in front of it would be that noise. Not joined
  // to the one before: a wider bucket averages a daily cycle otherwise than the others, a false change.
  const tail = steps - (spanned - 1) * perBucket;
  const total = spanned > 1 && 2 * tail < perBucket ? spanned - 1 : spanned;
  const sums = new Float64Array(total);
  const timeSums = new Float64Array(total);
  const counts = new Uint32Array(total);
  for (let index = 0; index < count; index++) {
    const value = values[index] as number;
    if (!Number.isFinite(value)) continue;
    const bucket = Math.floor(((times[index] as number) - range.start) / width);
    if (bucket < 0 || bucket >= total) continue;
    sums[bucket] = (sums[bucket] as number) + value;
    timeSums[bucket] = (timeSums[bucket] as number) + (times[index] as number) - range.start;
    counts[bucket] = (counts[bucket] as number) + 1;
  }
  const x = new Float64Array(total);
  const y = new Float64Array(total);
  let n = 0;
  for (let bucket = 0; bucket < total; bucket++) {
    const samples = counts[bucket] as number;
    if (samples === 0) continue;
    x[n] = (timeSums[bucket] as number) / samples / width;
    y[n] = (sums[bucket] as number) / samples;
    n++;
  }
  return { x, y, n, width };
}

/** 1.4826 × MAD of the first differences ÷ √2: the noise of one bucket, robust to a few jumps. */
export function noiseOf({ y, n }: Buckets): number {
  const differences = new Float64Array(n - 1);
  for (let index = 1; index < n; index++)
    differences[index - 1] = (y[index] as number) - (y[index - 1] as number);
  differences.sort();
  const median = medianOf(differences);
  const deviations = differences.map((d) => Math.abs(d - median)).sort();
  return (MAD_TO_SIGMA * medianOf(deviations)) / Math.SQRT2;
}

function medianOf(sorted: Float64Array): number {
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
