/**
 * When a series changed, and how: the best single change of its curve, kept only when it stands out
 * from the series' own noise and from how much the series moves anyway.
 *
 * Method (no library; deterministic):
 * 1. The points are averaged onto at most MAX_BUCKETS equal time buckets of the asked range (a whole
 *    number of steps each). NaN and ±Inf samples are ignored; a bucket without a finite sample is a gap.
 * 2. The noise σ is estimated from the buckets themselves: 1.4826 × the median absolute deviation of
 *    the first differences, ÷ √2. A step or a ramp moves few differences, so it barely moves σ.
 * 3. No change is a **straight line** over the window (a + b·t, least squares): a window that only
 *    trends (a daily rise or fall seen over an hour or two, a steady growth) has no change. A change is
 *    a departure from it, each model the line plus one term, fitted by least squares at every position
 *    (prefix sums of t, t², y and t·y over the residuals from the line: O(1) a position, so O(n) for
 *    the first two and O(n²) for the third, n ≤ MAX_BUCKETS): a **step** (a + b·t + d·[t ≥ k]), a
 *    **ramp** (a + b·t + c·max(0, t − k): the slope changes at k; a leak on a flat series reports where
 *    it began) and a **spike that ended** (a + b·t + d·[k1 ≤ t < k2]: `at` is its onset, `endedAt` its
 *    end). The lowest squared error wins, each model charged SPLIT_PENALTY × σ² × ln n per change time.
 * 4. Over a window of a day or more, the same is done once more with the series' daily cycle taken
 *    out (one sine of a day's period, fitted around the change in turn), and kept when it fits better
 *    and leaves no more than noise: a step on top of a daily cycle shows, the cycle alone does not.
 *    `before` and `after` are then the levels the series cycles around; the change must reach
 *    MIN_CYCLE_SCORE (two coefficients more were fitted).
 * 5. The onset (and a spike's end) is placed at the samples' own resolution, within the buckets around
 *    it, by the same least squares with the fitted model; the model is then refitted with its change
 *    there (a change inside a bucket would otherwise tilt the line). `before` and `after` are the
 *    fitted levels just before and just after `at` (a + b·t and a + b·t + d); a ramp joins its line,
 *    so its `after` is its fitted level at the window's end.
 * 6. The change is kept when its size (a step's or spike's d; a ramp's move since it began, no more
 *    than how far it left its line by the end) is at least MIN_SCORE times the larger of σ and the
 *    model's own residual (RMS), when it lowers the squared error by at least (MIN_EVIDENCE × that)²
 *    (a slope guessed from a few buckets near an edge does not), and, for a ramp, when its two lines
 *    leave no more than RAMP_FIT times the residuals' own noise: a smooth cycle that no single change
 *    fits is no change, though its halves differ. Limits: over a window of a quarter of a cycle to a
 *    whole one, its crest or trough is two lines and can be reported as a ramp (a cycle a few σ
 *    high seen over exactly one period: about 1 % of such windows); a cycle a little off a day's,
 *    seen over one to two of its periods, can pass for a daily cycle and a change; a change hidden
 *    under a cycle other than a day's is not found; σ comes from few differences over a short
 *    window (25 points in 2 h at 5 m), so a step there must be about 10σ to be found every time.
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
/**
 * A change must also lower the squared error by at least (MIN_EVIDENCE × scale)²: its size over the
 * error of its own estimate, which a slope change near an edge (its slope guessed from a few buckets) lacks.
 */
const MIN_EVIDENCE = 5;
/** A ramp is kept when its two lines leave at most this many times the residuals' own noise (RMS). */
const RAMP_FIT = 1.3;
/** The spike search runs when the residuals from the line span at least this share of MIN_SCORE × σ. */
const SPIKE_SEARCH = 0.8;
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
  let chosen = detected(plain, sigma, true);
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
  return changeFrom(chosen, { times, values, count, cycle }, range);
}

/** A fit's model as functions of time: its line, and its value when the change is at `split`. */
function modelOf(fit: Fit, range: QueryRange, width: number) {
  const line = (time: number) => fit.level + (fit.slope * (time - range.start)) / width;
  return {
    line,
    shifted: (time: number, split: number) => line(time) + (time >= split ? fit.change : 0),
    back: (time: number, split: number) => line(time) + (time < split ? fit.change : 0),
    bent: (time: number, split: number) =>
      line(time) + (time >= split ? (fit.change * (time - split)) / width : 0),
  };
}

/** The detected fit as a change, placed at the samples' resolution; undefined when it does not stand out. */
function changeFrom({ fit: found, buckets, sigma }: Detected, samples: Samples, range: QueryRange) {
  const rough = modelOf(found, range, buckets.width);
  const at = onsetTime(
    samples,
    range,
    buckets,
    found.from,
    found.kind === "ramp" ? rough.bent : rough.shifted,
  );
  const ended = found.kind === "spike" ? onsetTime(samples, range, buckets, found.to, rough.back) : undefined;
  // Refitted with the change where the samples put it: a change inside a bucket no longer tilts the line.
  const fit = refitted(buckets, found, range, at, ended) ?? found;
  const { line, bent } = modelOf(fit, range, buckets.width);
  // The fitted levels just before and just after the change; a ramp's, which joins its line, at the end.
  const before = line(at);
  const end = range.start + (buckets.x[buckets.n - 1] as number) * buckets.width;
  const after = fit.kind === "ramp" ? bent(end, at) : before + fit.change;
  // A ramp's size: how far it moved since it began, and no further than it left the line it was on
  // (the line's slope is guessed from the buckets before the change: extrapolated, it exaggerates).
  const size =
    fit.kind === "ramp"
      ? Math.min(Math.abs(after - before), Math.abs(after - line(end)))
      : Math.abs(fit.change);
  const residual = Math.sqrt(fit.sse / buckets.n);
  const scale = Math.max(sigma, residual, 1e-12 * Math.max(Math.abs(before), Math.abs(after)));
  const minimum = (samples.cycle === undefined ? MIN_SCORE : MIN_CYCLE_SCORE) * scale;
  // Large and well attested: a slope change a few buckets from an edge extrapolates a guessed slope.
  // A series that does not move at all (all zeros: no noise, no residual) has no change of size 0.
  if (!(size > 0 && size >= minimum) || Math.abs(fit.change) * Math.sqrt(fit.spread) < MIN_EVIDENCE * scale)
    return undefined;
  if (fit.kind === "ramp" && !straightEnough(buckets, fit)) return undefined;
  const score = size / scale;
  return ended === undefined ? { at, before, after, score } : { at, before, after, endedAt: ended, score };
}

/**
 * Whether a ramp's two lines leave no more than noise: their RMS residual within RAMP_FIT times the
 * noise of the residuals themselves (from their first differences). A curve that two lines only roughly
 * follow (a cycle's crest or trough seen whole) leaves smooth residuals far above their own noise.
 */
function straightEnough(buckets: Buckets, fit: Fit): boolean {
  const residuals = buckets.y.map((y, index) => y - levelAt({ fit, buckets }, index));
  const rms = Math.sqrt(residuals.reduce((sum, r) => sum + r * r, 0) / buckets.n);
  let squares = 0;
  for (let index = 1; index < buckets.n; index++)
    squares += ((residuals[index] as number) - (residuals[index - 1] as number)) ** 2;
  // Noise from successive differences (von Neumann): a smooth leftover curve barely moves it.
  return rms <= RAMP_FIT * Math.sqrt(squares / (2 * (buckets.n - 1)));
}

/**
 * The fit refitted with its change at `at` (a spike's end at `ended`): each bucket's regressor is its
 * samples' mean of the change's term (the share past a step, the mean distance past a ramp's start),
 * the samples taken at every step of the bucket.
 */
function refitted(buckets: Buckets, fit: Fit, range: QueryRange, at: number, ended: number | undefined) {
  const { x, y, n, width } = buckets;
  const perBucket = Math.max(1, Math.round(width / range.step));
  const onset = (at - range.start) / width;
  const back = ended === undefined ? Number.POSITIVE_INFINITY : (ended - range.start) / width;
  const termAt = (index: number): number => {
    const xi = x[index] as number;
    const bucket = Math.floor(xi);
    if (fit.kind === "ramp" && onset <= bucket) return xi - onset;
    if (bucket + 1 <= onset || back <= bucket) return 0;
    if (onset <= bucket && bucket + 1 <= back) return 1;
    let sum = 0;
    for (let k = 0; k < perBucket; k++) {
      const position = bucket + k / perBucket;
      if (position >= onset && position < back) sum += fit.kind === "ramp" ? position - onset : 1;
    }
    return sum / perBucket;
  };
  const line = lineOf(buckets);
  const sums = { x: 0, xx: 0, r: 0, xr: 0, rr: 0 };
  const term: Term = { z: 0, xz: 0, zz: 0, rz: 0 };
  for (let index = 0; index < n; index++) {
    const xi = x[index] as number;
    const ri = (y[index] as number) - line.level - line.slope * xi;
    const zi = termAt(index);
    sums.x += xi;
    sums.xx += xi * xi;
    sums.r += ri;
    sums.xr += xi * ri;
    sums.rr += ri * ri;
    term.z += zi;
    term.xz += xi * zi;
    term.zz += zi * zi;
    term.rz += ri * zi;
  }
  const refit = withTerm(totalsOf(n, sums.x, sums.xx, sums.r, sums.xr, sums.rr), term);
  if (refit === undefined) return undefined;
  return { ...fit, ...refit, level: refit.level + line.level, slope: refit.slope + line.slope, hinge: onset };
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
function levelAt({ fit, buckets }: Pick<Detected, "fit" | "buckets">, index: number): number {
  const x = buckets.x[index] as number;
  const line = fit.level + fit.slope * x;
  if (fit.kind === "ramp") return line + fit.change * Math.max(0, x - fit.hinge);
  const inside = index >= fit.from && index < fit.to;
  return inside ? line + fit.change : line;
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
function lineOf({ x, y, n }: Buckets): { level: number; slope: number } {
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

function totalsOf(n: number, sx: number, sxx: number, sr: number, sxr: number, rr: number): Totals {
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
interface Term {
  z: number;
  xz: number;
  zz: number;
  rz: number;
}

/**
 * The least-squares fit of r ≈ a + b·x + d·z, in O(1) from the sums: d from z without its own line
 * (z̃ = z − its fit on 1 and x), then a and b. Undefined when z is (nearly) a line itself.
 */
function withTerm(totals: Totals, term: Term) {
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

interface Samples {
  times: ArrayLike<number>;
  values: ArrayLike<number>;
  count: number;
  /** The daily cycle taken out, if it was. */
  cycle: ((time: number) => number) | undefined;
}

/**
 * The time of the change into bucket index `index` at the samples' resolution: among the samples of
 * the buckets around it, the split that the fitted model (`model(time, split)`: its value at a time when
 * the change is at `split`) fits best in least squares.
 */
function onsetTime(
  { times, values, count, cycle }: Samples,
  range: QueryRange,
  buckets: Buckets,
  index: number,
  model: (time: number, split: number) => number,
): number {
  const { x, width, n } = buckets;
  const first = range.start + Math.floor(x[Math.max(0, index - 2)] as number) * width;
  const last = range.start + (Math.floor(x[Math.min(n - 1, index + 1)] as number) + 1) * width;
  const window: [number, number][] = [];
  for (let at = 0; at < count; at++) {
    const time = times[at] as number;
    const value = values[at] as number;
    if (time >= first && time < last && Number.isFinite(value))
      window.push([time, value - (cycle === undefined ? 0 : cycle(time))]);
  }
  window.sort((a, b) => a[0] - b[0]);
  const fallback = range.start + Math.floor(x[index] as number) * width;
  if (window.length === 0) return fallback;
  // Split k: samples before k are before the change, the others after it.
  let bestCost = Number.POSITIVE_INFINITY;
  let bestTime = fallback;
  for (let split = 0; split < window.length; split++) {
    const splitTime = (window[split] as [number, number])[0];
    let cost = 0;
    for (const [time, value] of window) cost += (value - model(time, splitTime)) ** 2;
    if (cost < bestCost) {
      bestCost = cost;
      bestTime = splitTime;
    }
  }
  return bestTime;
}
