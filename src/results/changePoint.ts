/**
 * When a series changed, and how: the best single change of its curve, kept only when it stands out
 * from the series' own noise and from how much the series moves anyway.
 *
 * Method (no library; deterministic):
 * 1. The points are averaged onto at most MAX_BUCKETS equal time buckets of the asked range (a whole
 *    number of steps each; a last bucket of less than half that is left out, its mean of a few samples
 *    being far noisier than σ). NaN and ±Inf samples are ignored; a bucket without a finite sample is a gap.
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
 *
 * This module finds and places the change; its parts: changeBuckets.ts (the buckets and σ), changeFits.ts
 * (the least-squares fits), dailyCycle.ts (the daily cycle).
 */

import { type Buckets, bucketed, noiseOf } from "./changeBuckets.js";
import {
  bestFit,
  type Fit,
  lineOf,
  MIN_SCORE,
  SPLIT_PENALTY,
  type Term,
  totalsOf,
  withTerm,
} from "./changeFits.js";
import type { QueryRange } from "./curves.js";
import { DAY, type DailyCycle, dailyCycle, phasesOf } from "./dailyCycle.js";

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

/** Fewer non-empty buckets than this say nothing about a change. */
const MIN_BUCKETS = 12;
/** With a daily cycle taken out (two coefficients more), a change must stand out this much. */
const MIN_CYCLE_SCORE = 10;
/**
 * A change must also lower the squared error by at least (MIN_EVIDENCE × scale)²: its size over the
 * error of its own estimate, which a slope change near an edge (its slope guessed from a few buckets) lacks.
 */
const MIN_EVIDENCE = 5;
/** A ramp is kept when its two lines leave at most this many times the residuals' own noise (RMS). */
const RAMP_FIT = 1.3;

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
  const end = lastTime(samples, range);
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

/** The last finite sample's time within the range: a ramp's end, past a short last bucket left out. */
function lastTime({ times, values, count }: Samples, range: QueryRange): number {
  let last = range.start;
  for (let index = 0; index < count; index++) {
    const time = times[index] as number;
    if (time > last && time <= range.end && Number.isFinite(values[index] as number)) last = time;
  }
  return last;
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
