import { type ChangePoint, changeOf } from "./changePoint.js";
import { type Curve, CurveSpace, type QueryRange } from "./curves.js";
import type { Budget } from "./fit.js";
import { parseSample } from "./numbers.js";
import type { QueryAsked } from "./queryAsked.js";
import { type Features, ranked } from "./ranking.js";
import { asSample, asSeries, histogramValue } from "./series.js";
import { PointBuffer, readSeries } from "./seriesBytes.js";
import { SeriesStats } from "./stats.js";

/** A vector sample of a cut answer: the element as Prometheus sent it, and its value read. */
export interface DescribedSample {
  kind: "sample";
  arrival: number;
  metric: unknown;
  features: Features;
  element: unknown;
  time: number;
  value: number;
}

/** A matrix series of a cut answer: its statistics and its curves, without its points. */
export interface DescribedSeries {
  kind: "series";
  arrival: number;
  metric: unknown;
  features: Features;
  stats: SeriesStats;
  values?: Curve | undefined;
  histograms?: Curve | undefined;
  /** When the series changed and how (see changePoint.ts): a range query's float series only. */
  change?: ChangePoint | undefined;
}

export type Described = DescribedSample | DescribedSeries;

/** What a Description holds at the end. */
export interface Descriptions {
  /** The elements of the answer's kind, in Prometheus's order. */
  items: Described[];
  /** Elements described but not kept: the least ranked beyond MAX_DESCRIBED, and any of the other kind. */
  dropped: number;
  /** The curves' space (range results). */
  space: CurveSpace | undefined;
}

/**
 * At most this many series are described. Beyond it, whenever twice as many are held, the least
 * ranked half is dropped (ranked against the series read so far): their rows are missing from the
 * table, and the note says how many. No budget shows more rows than this.
 */
export const MAX_DESCRIBED = 20_000;
/** Buckets of every curve, at most, for all the series of one answer (4 numbers each: 8 MiB). */
const MAX_CURVE_BUCKETS = 128 * 1024;
/** A curve's resolution while reading: never fewer buckets than this. */
const MIN_CURVE_BUCKETS = 64;
const MAX_BUCKETS_PER_CURVE = 4096;
/**
 * Tokens of budget per bucket of resolution kept while reading: fine enough that the step a cut
 * chooses (a whole multiple of the width) can come close to filling the budget with few curves.
 */
const TOKENS_PER_BUCKET = 16;
/**
 * The same for compact curves, whose entries cost about a third of a `[t, "v"]` pair (bench case
 * `cut-range-points-per-token`): a finer space, so that the steps a cut can choose are as close
 * together in tokens as a pair-shaped cut's (few curves filling the budget at a step between two).
 */
const COMPACT_TOKENS_PER_BUCKET = 5;

/**
 * The series (or samples) of an answer too large to return whole, each described as it streams in:
 * a vector's samples as they are (small), a matrix's series by their statistics and curves at a
 * coarser step (see CurveSpace). Memory follows the number of series, not of points.
 */
export class Description {
  private items: Described[] = [];
  private readonly buffer = new PointBuffer();
  private space: CurveSpace | undefined;
  private arrivals = 0;
  private dropped = 0;

  constructor(
    private readonly asked: QueryAsked,
    private readonly budget: Budget,
    /** Whether range series get their change point: off only in the bench case `change-points`, to measure its cost. */
    private readonly findChanges = true,
  ) {}

  /** Describes the element; false when it is neither a vector sample nor a matrix series. */
  add(element: unknown): boolean {
    const sample = asSample(element);
    if (sample !== undefined) {
      const { metric, time, value } = sample;
      const features = { peak: value, dip: value, last: value };
      this.keep({ kind: "sample", arrival: this.arrivals++, metric, features, element, time, value });
      return true;
    }
    const series = asSeries(element);
    if (series === undefined) return false;
    const { values, histograms, metric } = series;
    const buffer = this.buffer;
    for (let index = 0; index < values.length; index++) {
      if (index === buffer.times.length) buffer.grow();
      const [time, text] = values[index] as [number, string];
      buffer.times[index] = time;
      buffer.values[index] = parseSample(text);
    }
    const described = this.describeFloats(metric, values.length);
    if (histograms.length > 0) {
      described.histograms = this.spaceFor(undefined).curve(true);
      for (const [time, histogram] of histograms) {
        const value = histogramValue(histogram);
        described.stats.add(time, value);
        described.histograms.add(time, value, histogram);
      }
      const { stats } = described;
      described.features = { peak: stats.max, dip: stats.min, last: stats.last };
    }
    this.keep(described);
    return true;
  }

  /**
   * Describes a matrix series read straight from its bytes (see readSeries), and gives its number of
   * points; undefined, describing nothing, when the bytes are in another shape (then parse and `add`).
   */
  addBytes(raw: Uint8Array): number | undefined {
    const read = readSeries(raw, this.buffer);
    if (read === undefined) return undefined;
    this.keep(this.describeFloats(read.metric, read.count));
    return read.count;
  }

  result(kind: Described["kind"]): Descriptions {
    const items = this.items.filter((item) => item.kind === kind);
    return { items, dropped: this.dropped + this.items.length - items.length, space: this.space };
  }

  /** A series of the `count` float points in the buffer. */
  private describeFloats(metric: unknown, count: number): DescribedSeries {
    const stats = new SeriesStats();
    const { times, values } = this.buffer;
    const curve = count > 0 ? this.spaceFor(this.buffer.times[0]).curve(false) : undefined;
    for (let index = 0; index < count; index++) {
      const time = times[index] as number;
      const value = values[index] as number;
      stats.add(time, value);
      curve?.add(time, value);
    }
    // From the raw points, while they are at hand: the onset is placed at the step's resolution,
    // which the curve's buckets are coarser than. An instant query's matrix has no asked range.
    const range = this.asked.range;
    const change =
      range === undefined || !this.findChanges ? undefined : changeOf(times, values, count, range);
    const features = { peak: stats.max, dip: stats.min, last: stats.last, change: change?.score };
    return { kind: "series", arrival: this.arrivals++, metric, features, stats, values: curve, change };
  }

  /** The curves' space: the asked range, or for an instant query's matrix one from the first series read. */
  private tokensPerBucket(): number {
    return this.asked.form === "compact" && this.asked.range !== undefined
      ? COMPACT_TOKENS_PER_BUCKET
      : TOKENS_PER_BUCKET;
  }

  private spaceFor(firstTime: number | undefined): CurveSpace {
    if (this.space !== undefined) return this.space;
    const perCurve = Math.min(
      MAX_BUCKETS_PER_CURVE,
      Math.max(MIN_CURVE_BUCKETS, Math.round(this.budget.tokens / this.tokensPerBucket())),
    );
    const range = this.asked.range ?? instantRange(firstTime, this.asked.time);
    this.space = new CurveSpace(range, perCurve, MAX_CURVE_BUCKETS);
    return this.space;
  }

  private keep(item: Described): void {
    this.items.push(item);
    if (this.items.length < 2 * MAX_DESCRIBED) return;
    const order = ranked(
      this.items.map((kept) => kept.features),
      this.asked.order,
    );
    const keep = new Set(order.slice(0, MAX_DESCRIBED));
    const kept = this.items.filter((_, index) => keep.has(index));
    const released = new Set<Curve>();
    for (const [index, dropped] of this.items.entries()) {
      if (keep.has(index) || dropped.kind !== "series") continue;
      if (dropped.values) released.add(dropped.values);
      if (dropped.histograms) released.add(dropped.histograms);
    }
    this.space?.release(released);
    this.dropped += this.items.length - kept.length;
    this.items = kept;
  }
}

/**
 * An instant query's matrix (a range selector such as `up[5m]`) has no asked range: its curves span
 * from the first series' first sample to the evaluation time, at a second's resolution (samples
 * outside fall into the first or last bucket, at their own times).
 */
function instantRange(firstTime: number | undefined, time: number | undefined): QueryRange {
  const start = firstTime ?? time ?? 0;
  return { start, end: Math.max(start, time ?? start), step: 1 };
}
