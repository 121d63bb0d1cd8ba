// The change-point finder's least-squares fits (changePoint.ts): the window's line, and the line plus one
// change (a step, a ramp, a spike that ended) at the best position, from prefix sums of the residuals.

import type { Buckets } from "./changeBuckets.js";

/** A change is kept when its size is at least this many times the noise and the model's residual. */
export const MIN_SCORE = 7;
/** The spike search runs when the residuals from the line span at least this share of MIN_SCORE × σ. */
const SPIKE_SEARCH = 0.8;
/** Penalty per change time a model adds, in σ² × ln n (a BIC-like charge for the spike's second time). */
export const SPLIT_PENALTY = 2;

export interface Fit {
  kind: "step" | "ramp" | "spike";
  cost: number;
  sse: number;
  /** Index of the first bucket after the change. */
  from: number;
  /** A spike: index of the first bucket back at the baseline. */
  to: number;
  /** Where the change sits, in bucket widths from the start: halfway between buckets from − 1 and from. */
  hinge: number;
  /** The line the change departs from: level + slope × x (x in bucket widths from the start). */
  level: number;
  slope: number;
  /** A step or spike: its shift from the line; a ramp: its change of slope per bucket width. */
  change: number;
  /** Σ z̃² of the change's regressor off the line: the fit lowers the squared error by change² × spread. */
  spread: number;
}

/** The lowest-cost fit of the three models, or undefined when no position is allowed. */
export function bestFit(buckets: Buckets, sigma: number, spikes: boolean): Fit | undefined {
  const { n } = buckets;
  const line = lineOf(buckets);
  const sums = prefixSums(buckets, line);
  const minimum = Math.max(3, Math.ceil(n / 50));
  const charge = SPLIT_PENALTY * sigma * sigma * Math.log(n);
  let best: Fit | undefined;
  const offer = (fit: Fit | undefined) => {
    if (fit !== undefined && (best === undefined || fit.cost < best.cost)) best = fit;
  };
  // Each position's squared error first, the fit (an object) only for each kind's best: the same
  // choice as fitting every position (the first of equal errors wins), without an allocation each.
  let step = { from: -1, sse: Number.POSITIVE_INFINITY };
  let ramp = { from: -1, sse: Number.POSITIVE_INFINITY };
  for (let from = minimum; from <= n - minimum; from++) {
    const stepSse = termError(sums.totals, segmentTerm(sums, from, n));
    if (stepSse < step.sse) step = { from, sse: stepSse };
    const rampSse = termError(sums.totals, rampTerm(sums, buckets, from));
    if (rampSse < ramp.sse) ramp = { from, sse: rampSse };
  }
  if (step.from >= 0) offer(stepFit(sums, buckets, step.from, charge));
  if (ramp.from >= 0) offer(rampFit(sums, buckets, ramp.from, charge));
  // A spike of d moves the residuals from the line by about d: the O(n²) search only when they move enough.
  if (spikes && sums.high - sums.low >= SPIKE_SEARCH * MIN_SCORE * sigma)
    offer(spikeFit(sums, buckets, minimum, 2 * charge));
  // The fits are of the residuals from the window's own line: adding it back gives the series' levels.
  return best === undefined
    ? undefined
    : { ...best, level: best.level + line.level, slope: best.slope + line.slope };
}

/** The least-squares line of the buckets: the model of a window without a change. */
export function lineOf({ x, y, n }: Buckets): { level: number; slope: number } {
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let index = 0; index < n; index++) {
    const xi = x[index] as number;
    const yi = y[index] as number;
    sx += xi;
    sy += yi;
    sxx += xi * xi;
    sxy += xi * yi;
  }
  const determinant = n * sxx - sx * sx;
  const slope = determinant > 0 ? (n * sxy - sx * sy) / determinant : 0;
  return { level: (sy - slope * sx) / n, slope };
}

interface Sums {
  /** Prefix sums over bucket indices of the residuals r from the window's line: s[i] sums indices < i. */
  r: Float64Array;
  x: Float64Array;
  xx: Float64Array;
  xr: Float64Array;
  totals: Totals;
  /** The lowest and highest residual. */
  low: number;
  high: number;
}

/** Sums over all the buckets of their residuals r from the window's line. */
interface Totals {
  r: number;
  xr: number;
  rr: number;
  /** The inverse of the line's normal matrix [[n, Σx], [Σx, Σx²]]: [a, b, c] of [[a, b], [b, c]]. */
  inverse: [number, number, number];
}

export function totalsOf(n: number, sx: number, sxx: number, sr: number, sxr: number, rr: number): Totals {
  const determinant = n * sxx - sx * sx;
  return { r: sr, xr: sxr, rr, inverse: [sxx / determinant, -sx / determinant, n / determinant] };
}

function prefixSums({ x, y, n }: Buckets, line: { level: number; slope: number }): Sums {
  const sums: Sums = {
    r: new Float64Array(n + 1),
    x: new Float64Array(n + 1),
    xx: new Float64Array(n + 1),
    xr: new Float64Array(n + 1),
    totals: totalsOf(1, 0, 1, 0, 0, 0),
    low: Number.POSITIVE_INFINITY,
    high: Number.NEGATIVE_INFINITY,
  };
  let rr = 0;
  // Residuals, not values: sums of squares keep their precision on large levels and steep trends.
  for (let index = 0; index < n; index++) {
    const xi = x[index] as number;
    const ri = (y[index] as number) - line.level - line.slope * xi;
    sums.r[index + 1] = (sums.r[index] as number) + ri;
    sums.x[index + 1] = (sums.x[index] as number) + xi;
    sums.xx[index + 1] = (sums.xx[index] as number) + xi * xi;
    sums.xr[index + 1] = (sums.xr[index] as number) + xi * ri;
    rr += ri * ri;
    if (ri < sums.low) sums.low = ri;
    if (ri > sums.high) sums.high = ri;
  }
  const total = (sum: Float64Array) => sum[n] as number;
  sums.totals = totalsOf(n, total(sums.x), total(sums.xx), total(sums.r), total(sums.xr), rr);
  return sums;
}

const between = (sum: Float64Array, from: number, to: number) => (sum[to] as number) - (sum[from] as number);

/** The sums of a change's regressor z over the buckets: Σz, Σx·z, Σz², Σr·z. */
export interface Term {
  z: number;
  xz: number;
  zz: number;
  rz: number;
}

/**
 * The least-squares fit of r ≈ a + b·x + d·z, in O(1) from the sums: d from z without its own line
 * (z̃ = z − its fit on 1 and x), then a and b. Undefined when z is (nearly) a line itself.
 */
export function withTerm(totals: Totals, term: Term) {
  const solved = solveTerm(totals, term);
  if (solved === undefined) return undefined;
  const { level, slope, change, spread } = solved;
  return { level, slope, change, sse: errorOf(totals, term, solved), spread };
}

/** withTerm's squared error alone (NaN when z is nearly a line): what a search compares. */
function termError(totals: Totals, term: Term): number {
  const solved = solveTerm(totals, term);
  return solved === undefined ? Number.NaN : errorOf(totals, term, solved);
}

function errorOf(
  { r: sr, xr: sxr, rr }: Totals,
  term: Term,
  fit: { level: number; slope: number; change: number },
) {
  return Math.max(0, rr - fit.level * sr - fit.slope * sxr - fit.change * term.rz);
}

function solveTerm({ inverse, r: sr, xr: sxr }: Totals, term: Term) {
  const [p, q, s] = inverse;
  // G⁻¹·[Σz, Σxz] and G⁻¹·[Σr, Σxr] (the latter ≈ 0: r is already off its line).
  const gz0 = p * term.z + q * term.xz;
  const gz1 = q * term.z + s * term.xz;
  const base0 = p * sr + q * sxr;
  const base1 = q * sr + s * sxr;
  const spread = term.zz - term.z * gz0 - term.xz * gz1;
  if (!(spread > 1e-9 * term.zz)) return undefined;
  const change = (term.rz - term.z * base0 - term.xz * base1) / spread;
  return { level: base0 - change * gz0, slope: base1 - change * gz1, change, spread };
}

/** The indicator of buckets [from, to) as a term. */
function segmentTerm(sums: Sums, from: number, to: number): Term {
  const count = to - from;
  return { z: count, xz: between(sums.x, from, to), zz: count, rz: between(sums.r, from, to) };
}

/** Halfway between bucket index − 1 and index: where a change into bucket `index` is placed. */
const hingeAt = (x: Float64Array, index: number) => ((x[index - 1] as number) + (x[index] as number)) / 2;

/** A line, then the same line shifted by d from bucket `from` on. */
function stepFit(sums: Sums, { x, n }: Buckets, from: number, charge: number): Fit | undefined {
  const fit = withTerm(sums.totals, segmentTerm(sums, from, n));
  if (fit === undefined) return undefined;
  return { kind: "step", cost: fit.sse + charge, from, to: n, hinge: hingeAt(x, from), ...fit };
}

/** A line, then a line of another slope joined to it at the hinge: z = max(0, x − hinge). */
function rampFit(sums: Sums, buckets: Buckets, from: number, charge: number): Fit | undefined {
  const fit = withTerm(sums.totals, rampTerm(sums, buckets, from));
  if (fit === undefined) return undefined;
  return {
    kind: "ramp",
    cost: fit.sse + charge,
    from,
    to: buckets.n,
    hinge: hingeAt(buckets.x, from),
    ...fit,
  };
}

/** The ramp's regressor z = max(0, x − hinge), the hinge before bucket `from`, as a term. */
function rampTerm(sums: Sums, { x, n }: Buckets, from: number): Term {
  const hinge = hingeAt(x, from);
  const count = n - from;
  const sx = between(sums.x, from, n);
  const sxx = between(sums.xx, from, n);
  return {
    z: sx - hinge * count,
    xz: sxx - hinge * sx,
    zz: sxx - 2 * hinge * sx + hinge * hinge * count,
    rz: between(sums.xr, from, n) - hinge * between(sums.r, from, n),
  };
}

/** The best line with a raised or lowered segment [from, to), both ends at least `minimum` from the edges. */
function spikeFit(sums: Sums, buckets: Buckets, minimum: number, charge: number): Fit | undefined {
  const { n, x } = buckets;
  const [p, q, s] = sums.totals.inverse;
  let bestGain = Number.NEGATIVE_INFINITY;
  let bestFrom = -1;
  let bestTo = -1;
  // r is off its line (Σr = Σx·r = 0): a segment lowers the squared error by (Σ r over it)² / Σ z̃².
  for (let from = minimum; from < n - minimum; from++) {
    // A long raised segment is rather a step and a step back: a spike is at most a quarter of the window.
    for (let to = from + 2; to <= Math.min(n - minimum, from + (n >> 2)); to++) {
      const count = to - from;
      const sx = between(sums.x, from, to);
      const spread = count - count * (p * count + q * sx) - sx * (q * count + s * sx);
      const inside = between(sums.r, from, to);
      const gain = spread > 1e-9 * count ? (inside * inside) / spread : 0;
      if (gain > bestGain) {
        bestGain = gain;
        bestFrom = from;
        bestTo = to;
      }
    }
  }
  if (bestFrom < 0) return undefined;
  const fit = withTerm(sums.totals, segmentTerm(sums, bestFrom, bestTo));
  if (fit === undefined) return undefined;
  return {
    kind: "spike",
    cost: fit.sse + charge,
    from: bestFrom,
    to: bestTo,
    hinge: hingeAt(x, bestFrom),
    ...fit,
  };
}
