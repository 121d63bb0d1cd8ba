/**
 * Which series a cut result shows first.
 *
 * - `unusual` (the default): furthest from the group's typical series, in either direction, plus how
 *   much it changed. Each series is described by its peak, dip and last value; for each of the three,
 *   the group's median and its median absolute deviation (MAD) are taken, and the series scores its
 *   largest distance from the median in robust standard deviations (|x − median| / (1.4826 × MAD); where
 *   more than half the group is equal and the MAD is 0, the mean absolute deviation × 1.2533 stands in).
 *   A range series with a change point (changePoint.ts) adds the change's score: its size in its own
 *   noise's robust standard deviations. So of a group that follows one daily cycle, the series that
 *   stepped an hour ago ranks above the one whose cycle is a little larger, at its usual daily peak:
 *   a cycle is no change. An infinite value is the most unusual; NaN says nothing. Robust: one wild
 *   series cannot hide another, as it would move a mean and a standard deviation.
 * - `highest`: the highest peak first (an instant vector's sample: its value).
 * - `lowest`: the lowest dip first.
 *
 * Ties, and series with nothing to rank by (NaN only), keep Prometheus's order, the latter last.
 */
export type Order = "unusual" | "highest" | "lowest";

export const ORDERS: readonly Order[] = ["unusual", "highest", "lowest"];

/** What a series is ranked by (for an instant vector's sample, its value three times). */
export interface Features {
  peak: number;
  dip: number;
  last: number;
  /** A range series' change point score (ChangePoint.score), when it has one. */
  change?: number | undefined;
}

/** MAD × this estimates the standard deviation of normally distributed data. */
const MAD_TO_SIGMA = 1.4826;
/** Mean absolute deviation × this estimates the standard deviation, where the MAD is 0. */
const MEAN_AD_TO_SIGMA = 1.2533;

/** The positions of `items` in `order`, best first. */
export function ranked(items: readonly Features[], order: Order): number[] {
  const keys = order === "unusual" ? unusualness(items) : extremes(items, order);
  const positions = items.map((_, index) => index);
  // Larger keys first; NaN keys (nothing to rank by) last; Array.prototype.sort is stable.
  positions.sort((a, b) => compareKeys(keys[a] as number, keys[b] as number));
  return positions;
}

/** How unusual each item is (larger: more), or NaN when it has nothing to rank by. */
export function unusualness(items: readonly Features[]): number[] {
  const scales = (["peak", "dip", "last"] as const).map((feature) =>
    robustScale(items.map((item) => item[feature])),
  );
  return items.map((item) => {
    let score = Number.NaN;
    (["peak", "dip", "last"] as const).forEach((feature, index) => {
      const distance = standardized(item[feature], scales[index] as Scale);
      if (!Number.isNaN(distance) && !(distance <= score)) score = distance;
    });
    // A change adds to the distance: both are in robust standard deviations, the change's of the series' own noise.
    return item.change === undefined || Number.isNaN(score) ? score : score + item.change;
  });
}

interface Scale {
  median: number;
  sigma: number;
}

function robustScale(values: readonly number[]): Scale {
  const finite = Float64Array.from(values.filter(Number.isFinite)).sort();
  if (finite.length === 0) return { median: Number.NaN, sigma: 0 };
  const median = medianOf(finite);
  const deviations = finite.map((x) => Math.abs(x - median)).sort();
  const mad = medianOf(deviations);
  if (mad > 0) return { median, sigma: MAD_TO_SIGMA * mad };
  let sum = 0;
  for (const deviation of deviations) sum += deviation;
  return { median, sigma: (MEAN_AD_TO_SIGMA * sum) / deviations.length };
}

function medianOf(sorted: Float64Array): number {
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function standardized(x: number, { median, sigma }: Scale): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (!Number.isFinite(x)) return Number.POSITIVE_INFINITY;
  // sigma 0: every finite value of the group is the median.
  return sigma > 0 ? Math.abs(x - median) / sigma : 0;
}

function extremes(items: readonly Features[], order: "highest" | "lowest"): number[] {
  return items.map((item) => (order === "highest" ? item.peak : -item.dip));
}

function compareKeys(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a === b ? 0 : a > b ? -1 : 1;
}
