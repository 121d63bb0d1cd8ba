/**
 * When a series changed, and how: the best single change of its curve, kept only when it stands out
 * from the series' own noise and from how much the series moves anyway.
 *
 * Method (no library; deterministic):
 * 1. The points are averaged onto at most MAX_BUCKETS equal time buckets of the asked range (a whole
 *    number of steps each). NaN and ±Inf samples are ignored; a bucket without a finite sample is a gap.
 * 2. The noise σ is estimated from the buckets themselves: 1.4826 × the median absolute deviation of
 *    the first differences, ÷ √2. A step or a ramp moves few differences, so it barely moves σ.
 * 3. Three models are fitted by least squares at every position (prefix sums: O(n) for the first two,
 *    O(n²) for the third, n ≤ MAX_BUCKETS): a **step** (constant, then another constant), a **ramp**
 *    (constant, then a straight line from the change on, joined to it: a leak reports where it began,
 *    and `after` is the level at the end), and a **spike that ended** (baseline, a raised or lowered
 *    segment, the same baseline again: `at` is its onset, `endedAt` its end). The lowest squared error
 *    wins, each model charged SPLIT_PENALTY × σ² × ln n per change time it adds.
 * 4. Over a window of a day or more, the same is done once more with the series' daily cycle taken
 *    out (one sine of a day's period, fitted around the change in turn), and kept when it fits better
 *    and leaves no more than noise: a step on top of a daily cycle shows, the cycle alone does not.
 *    `before` and `after` are then the levels the series cycles around; the change must reach
 *    MIN_CYCLE_SCORE (two coefficients more were fitted).
 * 5. The change is kept when its size |after − before| is at least MIN_SCORE times the larger of σ and
 *    the model's own residual (RMS): a smooth cycle that no single change fits is no change, though its
 *    halves differ. Limits: over a window shorter than one cycle a diurnal rise is a ramp, and is
 *    reported as one; a cycle a little off a day's, seen over one to two of its periods, can pass for
 *    a daily cycle and a change; a change hidden under a cycle other than a day's is not found.
 * 6. The onset (and a spike's end) is then placed at the samples' own resolution, within the buckets
 *    around it, by the same least squares with the fitted levels.
 *
 * Segments: the levels before and after at least max(3, n / 50) buckets each; a spike 2 buckets to a
 * quarter of the window. Fewer than MIN_BUCKETS non-empty buckets, or a constant series: no change.
 * The cost per series is the bench case `change-points` (describing a cut answer with and without).
 */
import type { QueryRange } from "./curves.js";

/** A series' change: times in Unix seconds, levels in the series' unit. */
export interface ChangePoint {
  /** When the change began (a ramp: where it left its level; a spike: its onset). */
  at: number;
  /** The level before. */
  before: number;
  /** The level after (a ramp: at its end; a spike: the spike's level). */
  after: number;
  /** A spike that went back: when it ended. */
  endedAt?: number;
  /** The change's size in units of the larger of the noise and the model's residual. */
  score: number;
}

/** Buckets at most: the O(n²) spike search stays small. */
export const MAX_BUCKETS = 200;
/** Fewer non-empty buckets than this say nothing about a change. */
const MIN_BUCKETS = 12;
/** A change is kept when its size is at least this many times the noise and the model's residual. */
export const MIN_SCORE = 7;
/** With a daily cycle taken out (two coefficients more), a change must stand out this much. */
const MIN_CYCLE_SCORE = 10;
/** Penalty per change time a model adds, in σ² × ln n (a BIC-like charge for the spike's second time). */
const SPLIT_PENALTY = 2;
const MAD_TO_SIGMA = 1.4826;

interface Buckets {
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

interface Fit {
  kind: "step" | "ramp" | "spike";
  cost: number;
  sse: number;
  /** Index of the first bucket after the change. */
  from: number;
  /** A spike: index of the first bucket back at the baseline. */
  to: number;
  before: number;
  after: number;
  /** A ramp's slope per bucket position. */
  slope: number;
}

/** The series' best single change, or undefined when none stands out (or too few points to tell). */
export function findChange(
  points: ReadonlyArray<readonly [number, number]>,
  range: QueryRange,
): ChangePoint | undefined {
  const times = new Float64Array(points.length);
  const values = new Float64Array(points.length);
  points.forEach(([time, value], index) => {
    times[index] = time;
    values[index] = value;
  });
  return changeOf(times, values, points.length, range);
}

/** findChange over the first `count` points of two parallel arrays (the describer's buffer). */
export function changeOf(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  count: number,
  range: QueryRange,
): ChangePoint | undefined {
  const plain = bucketed(times, values, count, range);
  if (plain === undefined || plain.n < MIN_BUCKETS) return undefined;
  const sigma = noiseOf(plain);
  // No change is larger than the spread of the bucket means: most series stop here, unfitted.
  let chosen = spanOf(plain) >= MIN_SCORE * sigma ? detected(plain, sigma, true) : undefined;
  let cycle: ((time: number) => number) | undefined;
  if (range.end - range.start >= DAY) plain.phases = phasesOf(plain, range);
  const daily = plain.phases === undefined ? undefined : dailyCycle(plain);
  // A cycle within the noise is no cycle to take out.
  if (daily !== undefined && daily.amplitude >= MIN_CYCLE_AMPLITUDE * sigma) {
    const adjusted = withoutChangedCycle(plain, daily);
    // Two coefficients more: charged as one more change time. Kept only when the cycle and the change
    // leave no more than noise (but for the buckets a change falls in, half one level and half the
    // other): another period's cycle, taken out as a day's, leaves a beat a change would claim.
    if (
      adjusted !== undefined &&
      residualSpread(adjusted.detected) <= CYCLE_FIT * adjusted.detected.sigma &&
      (chosen === undefined || adjusted.detected.cost + adjusted.detected.charge < chosen.cost)
    ) {
      chosen = adjusted.detected;
      cycle = adjusted.cycle;
    }
  }
  if (chosen === undefined) return undefined;
  const { fit, buckets } = chosen;
  // The fit's levels are relative to the first bucket's mean (see prefixSums).
  const origin = buckets.y[0] as number;
  const before = origin + fit.before;
  const after = origin + fit.after;
  const size = Math.abs(fit.after - fit.before);
  const residual = Math.sqrt(fit.sse / buckets.n);
  const scale = Math.max(sigma, residual, 1e-12 * Math.max(Math.abs(before), Math.abs(after)));
  if (!(size > 0) || size < (cycle === undefined ? MIN_SCORE : MIN_CYCLE_SCORE) * scale) return undefined;
  const score = size / scale;
  const samples: Samples = { times, values, count, origin, cycle };
  const at = onsetTime(samples, range, buckets, fit.from, fit.before, fit.after, fit);
  if (fit.kind !== "spike") return { at, before, after, score };
  const endedAt = onsetTime(samples, range, buckets, fit.to, fit.after, fit.before, fit);
  return { at, before, after, endedAt, score };
}

const DAY = 86_400;
/** The daily cycle is taken out only when, with the change, it leaves at most this many σ (RMS). */
const CYCLE_FIT = 1.5;
/** Rounds of backfitting the cycle around the change. */
const BACKFITTING_ROUNDS = 2;
/** A daily cycle is taken out only when its amplitude is at least this many σ. */
const MIN_CYCLE_AMPLITUDE = 2;

interface Detected {
  fit: Fit;
  sigma: number;
  buckets: Buckets;
  cost: number;
  /** The charge of one change time at this noise. */
  charge: number;
}

/** The best fit of the buckets at noise σ; `spikes`: the O(n²) spike search too. */
function detected(buckets: Buckets, sigma: number, spikes: boolean): Detected | undefined {
  const fit = bestFit(buckets, sigma, spikes);
  if (fit === undefined) return undefined;
  return { fit, sigma, buckets, cost: fit.cost, charge: SPLIT_PENALTY * sigma * sigma * Math.log(buckets.n) };
}

/**
 * The change of the buckets without their daily cycle. The cycle and the change are fitted in turn
 * (backfitting, without the spike search until the last round): a change moves the first cycle's fit,
 * which then misplaces the change; fitted around the change, it does not.
 */
function withoutChangedCycle(
  plain: Buckets,
  first: DailyCycle,
): { detected: Detected; cycle: (time: number) => number } | undefined {
  let daily = first;
  // The noise without the cycle: the cycle's changing slope widens the series' first differences.
  const sigma = noiseOf(withoutCycle(plain, first));
  for (let round = 0; round <= BACKFITTING_ROUNDS; round++) {
    const last = round === BACKFITTING_ROUNDS;
    const change = detected(withoutCycle(plain, daily), sigma, last);
    if (change === undefined) return undefined;
    if (last) return { detected: change, cycle: daily.at };
    daily = dailyCycle({ ...plain, y: plain.y.map((y, index) => y - levelAt(change, index)) });
  }
  return undefined;
}

/** Highest bucket mean − lowest. */
function spanOf({ y, n }: Buckets): number {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < n; index++) {
    const value = y[index] as number;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return high - low;
}

function withoutCycle(buckets: Buckets, cycle: DailyCycle): Buckets {
  return { ...buckets, y: buckets.y.map((y, index) => y - (cycle.values[index] as number)) };
}

/** The RMS residual of the detected model, leaving out the buckets at its change times. */
function residualSpread(detected: Detected): number {
  const { y, n } = detected.buckets;
  const { from, to } = detected.fit;
  let sum = 0;
  let count = 0;
  for (let index = 0; index < n; index++) {
    if (Math.abs(index - from) <= 1 || Math.abs(index - to) <= 1) continue;
    sum += ((y[index] as number) - levelAt(detected, index)) ** 2;
    count++;
  }
  return Math.sqrt(sum / Math.max(1, count));
}

/** The detected model's value at the index-th bucket. */
function levelAt({ fit, buckets }: Detected, index: number): number {
  const { x, y } = buckets;
  const origin = y[0] as number;
  if (fit.kind === "spike") return origin + (index >= fit.from && index < fit.to ? fit.after : fit.before);
  if (index < fit.from) return origin + fit.before;
  if (fit.kind === "step") return origin + fit.after;
  const hinge = ((x[fit.from - 1] as number) + (x[fit.from] as number)) / 2;
  return origin + fit.before + fit.slope * ((x[index] as number) - hinge);
}

/** The mean time of the index-th non-empty bucket's samples. */
function centreOf({ x, width }: Buckets, range: QueryRange, index: number): number {
  return range.start + (x[index] as number) * width;
}

/**
 * The series' daily cycle, fitted by least squares as one sine of a day's period (mean removed): taken
 * out before looking for a change when that fits better, so that a step on top of a daily cycle shows
 * and the cycle alone does not.
 */
interface DailyCycle {
  /** The cycle's value at a time (its mean is 0 over the buckets). */
  at: (time: number) => number;
  /** Its value at each bucket. */
  values: Float64Array;
  amplitude: number;
}

const angleOf = (time: number) => (2 * Math.PI * (time % DAY)) / DAY;

function phasesOf(buckets: Buckets, range: QueryRange): { sin: Float64Array; cos: Float64Array } {
  const sin = new Float64Array(buckets.n);
  const cos = new Float64Array(buckets.n);
  for (let index = 0; index < buckets.n; index++) {
    const angle = angleOf(centreOf(buckets, range, index));
    sin[index] = Math.sin(angle);
    cos[index] = Math.cos(angle);
  }
  return { sin, cos };
}

function dailyCycle({ y, n, phases }: Buckets): DailyCycle {
  if (phases === undefined) return { at: () => 0, values: new Float64Array(n), amplitude: 0 };
  let ss = 0;
  let cc = 0;
  let sc = 0;
  let s1 = 0;
  let c1 = 0;
  let sy = 0;
  let cy = 0;
  let y1 = 0;
  for (let index = 0; index < n; index++) {
    const sin = phases.sin[index] as number;
    const cos = phases.cos[index] as number;
    const value = y[index] as number;
    ss += sin * sin;
    cc += cos * cos;
    sc += sin * cos;
    s1 += sin;
    c1 += cos;
    sy += sin * value;
    cy += cos * value;
    y1 += value;
  }
  // Centred sums: the fit of y ≈ mean + a·sin + b·cos, solved for a and b.
  const css = ss - (s1 * s1) / n;
  const ccc = cc - (c1 * c1) / n;
  const csc = sc - (s1 * c1) / n;
  const csy = sy - (s1 * y1) / n;
  const ccy = cy - (c1 * y1) / n;
  const determinant = css * ccc - csc * csc;
  if (!(determinant > 1e-9 * n * n)) return { at: () => 0, values: new Float64Array(n), amplitude: 0 };
  const a = (csy * ccc - ccy * csc) / determinant;
  const b = (ccy * css - csy * csc) / determinant;
  const sMean = s1 / n;
  const cMean = c1 / n;
  const values = phases.sin.map(
    (sin, index) => a * (sin - sMean) + b * ((phases.cos[index] as number) - cMean),
  );
  return {
    at: (time: number) => a * (Math.sin(angleOf(time)) - sMean) + b * (Math.cos(angleOf(time)) - cMean),
    values,
    amplitude: Math.hypot(a, b),
  };
}

function bucketed(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  count: number,
  range: QueryRange,
): Buckets | undefined {
  if (!(range.step > 0) || !(range.end >= range.start)) return undefined;
  const steps = Math.floor((range.end - range.start) / range.step) + 1;
  const width = Math.ceil(steps / MAX_BUCKETS) * range.step;
  const total = Math.ceil(steps / (width / range.step));
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
function noiseOf({ y, n }: Buckets): number {
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

/** The lowest-cost fit of the three models, or undefined when no position is allowed. */
function bestFit(buckets: Buckets, sigma: number, spikes: boolean): Fit | undefined {
  const { n } = buckets;
  const sums = prefixSums(buckets);
  const minimum = Math.max(3, Math.ceil(n / 50));
  const charge = SPLIT_PENALTY * sigma * sigma * Math.log(n);
  let best: Fit | undefined;
  const offer = (fit: Fit) => {
    if (best === undefined || fit.cost < best.cost) best = fit;
  };
  for (let from = minimum; from <= n - minimum; from++) {
    offer(stepFit(sums, n, from, charge));
    offer(rampFit(sums, buckets, from, charge));
  }
  if (spikes) spikeFits(sums, n, minimum, 2 * charge, offer);
  return best;
}

interface Sums {
  /** Prefix sums over bucket indices: s[i] is the sum over indices < i. */
  y: Float64Array;
  yy: Float64Array;
  x: Float64Array;
  xx: Float64Array;
  xy: Float64Array;
}

function prefixSums({ x, y, n }: Buckets): Sums {
  const sums: Sums = {
    y: new Float64Array(n + 1),
    yy: new Float64Array(n + 1),
    x: new Float64Array(n + 1),
    xx: new Float64Array(n + 1),
    xy: new Float64Array(n + 1),
  };
  // Values are centred on the first bucket's: sums of squares keep their precision on large levels.
  const origin = y[0] as number;
  for (let index = 0; index < n; index++) {
    const xi = x[index] as number;
    const yi = (y[index] as number) - origin;
    sums.y[index + 1] = (sums.y[index] as number) + yi;
    sums.yy[index + 1] = (sums.yy[index] as number) + yi * yi;
    sums.x[index + 1] = (sums.x[index] as number) + xi;
    sums.xx[index + 1] = (sums.xx[index] as number) + xi * xi;
    sums.xy[index + 1] = (sums.xy[index] as number) + xi * yi;
  }
  return sums;
}

const between = (sum: Float64Array, from: number, to: number) => (sum[to] as number) - (sum[from] as number);

function stepFit(sums: Sums, n: number, from: number, charge: number): Fit {
  const left = between(sums.y, 0, from);
  const right = between(sums.y, from, n);
  const sse = (sums.yy[n] as number) - (left * left) / from - (right * right) / (n - from);
  return {
    kind: "step",
    cost: sse + charge,
    sse,
    from,
    to: n,
    before: left / from,
    after: right / (n - from),
    slope: 0,
  };
}

/** A constant, then a line joined to it at the hinge (halfway between buckets from − 1 and from). */
function rampFit(sums: Sums, { x, n }: Buckets, from: number, charge: number): Fit {
  const hinge = ((x[from - 1] as number) + (x[from] as number)) / 2;
  const count = n - from;
  const sx = between(sums.x, from, n);
  const sy = between(sums.y, from, n);
  const su = sx - hinge * count;
  const suu = between(sums.xx, from, n) - 2 * hinge * sx + hinge * hinge * count;
  const suy = between(sums.xy, from, n) - hinge * sy;
  const total = sums.y[n] as number;
  const determinant = n * suu - su * su;
  if (!(determinant > 0)) return { ...stepFit(sums, n, from, charge), cost: Number.POSITIVE_INFINITY };
  const level = (suu * total - su * suy) / determinant;
  const slope = (n * suy - su * total) / determinant;
  const sse = Math.max(0, (sums.yy[n] as number) - level * total - slope * suy);
  const end = (x[n - 1] as number) - hinge;
  return {
    kind: "ramp",
    cost: sse + charge,
    sse,
    from,
    to: n,
    before: level,
    after: level + slope * end,
    slope,
  };
}

/** Every baseline / raised segment [from, to) / baseline fit, each baseline at least `minimum` long. */
function spikeFits(sums: Sums, n: number, minimum: number, charge: number, offer: (fit: Fit) => void): void {
  const total = sums.y[n] as number;
  const squares = sums.yy[n] as number;
  let bestSse = Number.POSITIVE_INFINITY;
  let bestFrom = -1;
  let bestTo = -1;
  for (let from = minimum; from < n - minimum; from++) {
    const start = sums.y[from] as number;
    // A long raised segment is rather a step and a step back: a spike is at most a quarter of the window.
    for (let to = from + 2; to <= Math.min(n - minimum, from + (n >> 2)); to++) {
      const inside = (sums.y[to] as number) - start;
      const count = to - from;
      const outside = total - inside;
      const sse = squares - (inside * inside) / count - (outside * outside) / (n - count);
      if (sse < bestSse) {
        bestSse = sse;
        bestFrom = from;
        bestTo = to;
      }
    }
  }
  if (bestFrom < 0) return;
  const inside = between(sums.y, bestFrom, bestTo);
  const count = bestTo - bestFrom;
  offer({
    kind: "spike",
    cost: bestSse + charge,
    sse: Math.max(0, bestSse),
    from: bestFrom,
    to: bestTo,
    before: ((sums.y[n] as number) - inside) / (n - count),
    after: inside / count,
    slope: 0,
  });
}

interface Samples {
  times: ArrayLike<number>;
  values: ArrayLike<number>;
  count: number;
  /** Subtracted from every value: the fit's levels are relative to it. */
  origin: number;
  /** The daily cycle taken out, if it was. */
  cycle: ((time: number) => number) | undefined;
}

/**
 * The time of the change into bucket index `index` at the samples' resolution: among the samples of
 * the buckets around it, the split that best separates `from` (before) and `to` (after; a ramp: its
 * line) in least squares.
 */
function onsetTime(
  { times, values, count, origin, cycle }: Samples,
  range: QueryRange,
  buckets: Buckets,
  index: number,
  from: number,
  to: number,
  fit: Fit,
): number {
  const { x, width, n } = buckets;
  const first = range.start + Math.floor(x[Math.max(0, index - 2)] as number) * width;
  const last = range.start + (Math.floor(x[Math.min(n - 1, index + 1)] as number) + 1) * width;
  const window: [number, number][] = [];
  for (let at = 0; at < count; at++) {
    const time = times[at] as number;
    const value = values[at] as number;
    if (time >= first && time < last && Number.isFinite(value))
      window.push([time, value - origin - (cycle === undefined ? 0 : cycle(time))]);
  }
  window.sort((a, b) => a[0] - b[0]);
  const fallback = range.start + Math.floor(x[index] as number) * width;
  if (window.length === 0) return fallback;
  const perSecond = fit.slope / width;
  // Split k: samples before k take `from`, the others `to` (a ramp: `from` + slope × time since the split).
  let bestCost = Number.POSITIVE_INFINITY;
  let bestTime = fallback;
  for (let split = 0; split < window.length; split++) {
    const splitTime = (window[split] as [number, number])[0];
    let cost = 0;
    for (let at = 0; at < window.length; at++) {
      const [time, value] = window[at] as [number, number];
      const predicted = at < split ? from : fit.kind === "ramp" ? from + perSecond * (time - splitTime) : to;
      cost += (value - predicted) ** 2;
    }
    if (cost < bestCost) {
      bestCost = cost;
      bestTime = splitTime;
    }
  }
  return bestTime;
}
