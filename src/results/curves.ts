/**
 * Curves kept at a coarser step while a range answer streams in: each series' points go into buckets
 * of `width` seconds aligned on the query's start, and a bucket keeps only its lowest and highest
 * sample (min-max downsampling). Merging neighbouring buckets keeps the min and max of the merged span
 * exactly, so a curve can be written later at any whole multiple of the width as if it had been
 * bucketed at that width from the raw points: every bucket's peak and dip are real samples, at their
 * own times.
 *
 * Memory is bounded by the space, not by the answer: at most `maxBuckets` buckets for all its curves,
 * 4 numbers each, in one typed array that grows as curves come (no allocation per curve). When more
 * series arrive than fit, every curve's buckets are merged in pairs, in place (the width doubles).
 *
 * @example
 * ```ts
 * const space = new CurveSpace({ start: 0, end: 3600, step: 15 }, 64, 100_000);
 * const curve = space.curve(false);
 * for (const [t, v] of points) curve.add(t, v);
 * curve.points(2); // [time, value, payload][] at twice space.width: each bucket's min and max, and the last sample
 * ```
 */

/** The range a query asked for, in seconds. */
export interface QueryRange {
  start: number;
  end: number;
  step: number;
}

/** A point of a written curve: time, value, and for a native histogram the sample's object. */
export type CurvePoint = [time: number, value: number, payload: unknown];

// A bucket is 4 numbers: the time and value of its lowest sample, then of its highest. An empty
// bucket's lowest time is NaN.
const MIN_TIME = 0;
const MIN_VALUE = 1;
const MAX_TIME = 2;
const MAX_VALUE = 3;
const NUMBERS = 4;
/** The slab's first size, in buckets; it doubles as curves come. */
const FIRST_SLAB_BUCKETS = 4096;

export class CurveSpace {
  /** Bucket width in seconds: a whole multiple of the step. */
  width: number;
  /** Buckets per curve. */
  buckets: number;
  /** Every curve's buckets, curve after curve (a curve's slot is its position). */
  data: Float64Array;
  private curves: Curve[] = [];

  constructor(
    readonly range: QueryRange,
    bucketsPerCurve: number,
    private readonly maxBuckets: number,
  ) {
    const steps = Math.max(1, Math.floor((range.end - range.start) / range.step) + 1);
    const perBucket = Math.max(1, Math.ceil(steps / Math.max(1, bucketsPerCurve)));
    this.width = perBucket * range.step;
    this.buckets = Math.max(1, Math.ceil(steps / perBucket));
    this.data = new Float64Array(NUMBERS * Math.min(maxBuckets, Math.max(this.buckets, FIRST_SLAB_BUCKETS)));
  }

  /** A new curve in this space; `histograms`: its samples are native histograms (kept as they are). */
  curve(histograms: boolean): Curve {
    while ((this.curves.length + 1) * this.buckets > this.maxBuckets && this.buckets > 1) this.coarsen();
    const needed = NUMBERS * (this.curves.length + 1) * this.buckets;
    if (needed > this.data.length) {
      const grown = new Float64Array(
        Math.min(NUMBERS * this.maxBuckets, Math.max(needed, 2 * this.data.length)),
      );
      grown.set(this.data);
      this.data = grown;
    }
    const curve = new Curve(this, this.curves.length, histograms);
    this.data.fill(Number.NaN, curve.offset, curve.offset + NUMBERS * this.buckets);
    this.curves.push(curve);
    return curve;
  }

  /** Gives curves' buckets back (their series were dropped): the others move down into their slots. */
  release(dropped: ReadonlySet<Curve>): void {
    const kept = this.curves.filter((curve) => !dropped.has(curve));
    const size = NUMBERS * this.buckets;
    kept.forEach((curve, slot) => {
      // Slots only move down, in order: a curve's new place never overlaps a later curve's old one.
      if (curve.slot !== slot) this.data.copyWithin(slot * size, curve.slot * size, (curve.slot + 1) * size);
      curve.slot = slot;
    });
    this.curves = kept;
  }

  /** The bucket of time `t` (times outside the range go to the first or last). */
  bucketOf(t: number): number {
    const index = Math.floor((t - this.range.start) / this.width);
    return index < 0 ? 0 : index >= this.buckets ? this.buckets - 1 : index;
  }

  /** Merges every curve's buckets in pairs, in place: each curve's new buckets start where its old ones did or lower. */
  private coarsen(): void {
    const buckets = Math.ceil(this.buckets / 2);
    for (const curve of this.curves) {
      const from = curve.slot * NUMBERS * this.buckets;
      mergeBuckets(
        this.data,
        from,
        this.buckets,
        2,
        this.data,
        curve.slot * NUMBERS * buckets,
        curve.payloads,
      );
    }
    this.buckets = buckets;
    this.width *= 2;
  }
}

export class Curve {
  private lastTime = Number.NaN;
  private lastValue = Number.NaN;
  private lastPayload: unknown;
  /** A native histogram curve's sample objects: the lowest's and the highest's of each bucket. */
  payloads: unknown[] | undefined;

  constructor(
    private readonly space: CurveSpace,
    /** The curve's position among the space's curves. */
    public slot: number,
    histograms: boolean,
  ) {
    this.payloads = histograms ? new Array(2 * space.buckets) : undefined;
  }

  /** Where its buckets start in the space's slab. */
  get offset(): number {
    return this.slot * NUMBERS * this.space.buckets;
  }

  /** One sample; `payload` is a native histogram's object, `value` its count. */
  add(time: number, value: number, payload?: unknown): void {
    if (!(time < this.lastTime)) {
      this.lastTime = time;
      this.lastValue = value;
      this.lastPayload = payload;
    }
    // NaN samples show as gaps: they are neither a bucket's min nor its max.
    if (Number.isNaN(value)) return;
    const bucket = this.space.bucketOf(time);
    const at = this.offset + NUMBERS * bucket;
    const data = this.space.data;
    const empty = Number.isNaN(data[at + MIN_TIME] as number);
    if (empty || value < (data[at + MIN_VALUE] as number)) {
      data[at + MIN_TIME] = time;
      data[at + MIN_VALUE] = value;
      if (this.payloads) this.payloads[2 * bucket] = payload;
    }
    if (empty || value > (data[at + MAX_VALUE] as number)) {
      data[at + MAX_TIME] = time;
      data[at + MAX_VALUE] = value;
      if (this.payloads) this.payloads[2 * bucket + 1] = payload;
    }
  }

  /**
   * The curve at `factor` times the space's width: each bucket's min and max sample in time order
   * (one point when they are the same sample or the same value), and the series' last sample. A run
   * of equal values over neighbouring buckets is written as its first and last point: the line
   * between them is the same, and a flat series costs two points instead of one per bucket.
   */
  points(factor: number): CurvePoint[] {
    const { merged, payloads, size } = this.merged(factor);
    const points: CurvePoint[] = [];
    const bucketOf: number[] = [];
    const push = (point: CurvePoint, bucket: number) => {
      points.push(point);
      bucketOf.push(bucket);
    };
    for (let bucket = 0; bucket < size; bucket++) {
      const at = NUMBERS * bucket;
      const minTime = merged[at + MIN_TIME] as number;
      if (Number.isNaN(minTime)) continue;
      const maxTime = merged[at + MAX_TIME] as number;
      const min: CurvePoint = [minTime, merged[at + MIN_VALUE] as number, payloads?.[2 * bucket]];
      const max: CurvePoint = [maxTime, merged[at + MAX_VALUE] as number, payloads?.[2 * bucket + 1]];
      if (minTime === maxTime || min[1] === max[1]) push(minTime <= maxTime ? min : max, bucket);
      else if (minTime < maxTime) {
        push(min, bucket);
        push(max, bucket);
      } else {
        push(max, bucket);
        push(min, bucket);
      }
    }
    const last = points[points.length - 1];
    if (!Number.isNaN(this.lastTime) && (last === undefined || last[0] < this.lastTime)) {
      push(
        [this.lastTime, this.lastValue, this.lastPayload],
        Math.floor(this.space.bucketOf(this.lastTime) / factor),
      );
    }
    // Native histograms of equal counts can differ: only float curves are run-length written.
    return this.payloads ? points : withoutRunInteriors(points, bucketOf);
  }

  /**
   * Each bucket at `factor` times the space's width (bucket k starts at range.start + k × width × factor):
   * the values of its lowest and highest samples in time order (one value when they are the same sample
   * or equal), undefined for an empty bucket. Unlike `points`, runs are not shortened.
   */
  extremes(factor: number): Array<readonly [number] | readonly [number, number] | undefined> {
    const { merged, size } = this.merged(factor);
    const extremes: Array<readonly [number] | readonly [number, number] | undefined> = [];
    for (let bucket = 0; bucket < size; bucket++) {
      const at = NUMBERS * bucket;
      const minTime = merged[at + MIN_TIME] as number;
      const maxTime = merged[at + MAX_TIME] as number;
      const min = merged[at + MIN_VALUE] as number;
      const max = merged[at + MAX_VALUE] as number;
      if (Number.isNaN(minTime)) extremes.push(undefined);
      else if (minTime === maxTime || min === max) extremes.push([min]);
      else extremes.push(minTime < maxTime ? [min, max] : [max, min]);
    }
    return extremes;
  }

  private merged(factor: number): { merged: Float64Array; payloads: unknown[] | undefined; size: number } {
    const buckets = this.space.buckets;
    const size = Math.ceil(buckets / factor);
    const merged = new Float64Array(NUMBERS * size);
    const payloads = this.payloads && new Array(2 * size);
    mergeBuckets(this.space.data, this.offset, buckets, factor, merged, 0, this.payloads, payloads);
    return { merged, payloads, size };
  }
}

/** The points without those inside a run: equal to both neighbours, with no empty bucket between them. */
function withoutRunInteriors(points: CurvePoint[], bucketOf: readonly number[]): CurvePoint[] {
  return points.filter((point, index) => {
    const before = points[index - 1];
    const after = points[index + 1];
    if (before === undefined || after === undefined) return true;
    const bucket = bucketOf[index] as number;
    const joined =
      bucket - (bucketOf[index - 1] as number) <= 1 && (bucketOf[index + 1] as number) - bucket <= 1;
    return !(joined && before[1] === point[1] && after[1] === point[1]);
  });
}

/**
 * Merges every `factor` neighbouring buckets of `buckets` starting at `from` in `source` into one,
 * written from `to` in `target` (which may be `source` itself, at `to` ≤ `from`: each bucket is read
 * before any write reaches it). `payloads` go along: from `sourcePayloads` into `targetPayloads`, or in
 * place when none is given.
 */
function mergeBuckets(
  source: Float64Array,
  from: number,
  buckets: number,
  factor: number,
  target: Float64Array,
  to: number,
  sourcePayloads: unknown[] | undefined,
  targetPayloads: unknown[] | undefined = sourcePayloads,
): void {
  const size = Math.ceil(buckets / factor);
  for (let bucket = 0; bucket < size; bucket++) {
    let minTime = Number.NaN;
    let minValue = Number.NaN;
    let maxTime = Number.NaN;
    let maxValue = Number.NaN;
    let minPayload: unknown;
    let maxPayload: unknown;
    const last = Math.min(buckets, (bucket + 1) * factor);
    for (let merged = bucket * factor; merged < last; merged++) {
      const at = from + NUMBERS * merged;
      if (Number.isNaN(source[at + MIN_TIME] as number)) continue;
      // Earlier buckets come first: on a tie the earlier sample stays, as it would have when added.
      if (Number.isNaN(minTime) || (source[at + MIN_VALUE] as number) < minValue) {
        minTime = source[at + MIN_TIME] as number;
        minValue = source[at + MIN_VALUE] as number;
        minPayload = sourcePayloads?.[2 * merged];
      }
      if (Number.isNaN(maxTime) || (source[at + MAX_VALUE] as number) > maxValue) {
        maxTime = source[at + MAX_TIME] as number;
        maxValue = source[at + MAX_VALUE] as number;
        maxPayload = sourcePayloads?.[2 * merged + 1];
      }
    }
    const at = to + NUMBERS * bucket;
    target[at + MIN_TIME] = minTime;
    target[at + MIN_VALUE] = minValue;
    target[at + MAX_TIME] = maxTime;
    target[at + MAX_VALUE] = maxValue;
    if (targetPayloads) {
      targetPayloads[2 * bucket] = minPayload;
      targetPayloads[2 * bucket + 1] = maxPayload;
    }
  }
  if (targetPayloads && targetPayloads === sourcePayloads) targetPayloads.length = 2 * size;
}
