import type { QueryRange } from "../results/curves.js";
import type { Labels } from "../results/labelSets.js";
import type { Features } from "../results/ranking.js";
import { SeriesStats } from "../results/stats.js";

/**
 * What a chart keeps of a range query's answer, reduced while it is read: its memory depends on the
 * number of series and on the chart's width, never on the points Prometheus sends (bench case
 * chart-largest-memory).
 *
 * Per series, exactly: its labels, its statistics (`series_stats`: min, max, avg, last, samples), what
 * the ranking reads (peak, dip, last) and how many of its samples are infinite. For the drawing, its
 * samples go into columns of the asked range, each a whole number of steps (one step per column up to
 * MAX_COLUMNS steps, so an answer of up to that many points per series is drawn exactly as sent); a
 * column keeps its lowest and highest finite sample (time and value) and where the line breaks (NaN,
 * ±Inf) before or after them. A line through each column's lowest and highest sample in time order
 * covers the pixels the line through every sample covers (min-max decimation): the chart looks the same.
 *
 * Every series' columns lie in one typed array. When more series come than MAX_CELLS columns hold, the
 * columns of every series are merged in pairs (twice as wide), as src/results/curves.ts does.
 */

/** Columns per series at most: about one per pixel of the plot (render.ts draws it 900 pixels wide). */
export const MAX_COLUMNS = 1_000;
/** Columns of all series together at most: 32 MB of numbers and 1 MB of flags. */
export const MAX_CELLS = 1_000_000;
/** The latest (and, negated, the earliest) time a JavaScript Date holds, in milliseconds. */
export const MAX_DATE_MS = 8.64e15;

// A column is 4 numbers: the time (Unix seconds) and value of its lowest finite sample, then of its
// highest. A column with no finite sample but a gap keeps the gap's time as its first number.
const MIN_TIME = 0;
const MIN_VALUE = 1;
const MAX_TIME = 2;
const MAX_VALUE = 3;
const NUMBERS = 4;
/** The column has a finite sample. */
const FINITE = 1;
/** The line breaks (a NaN or infinite sample) before the column's finite samples, or the column has only such. */
const GAP_BEFORE = 2;
/** The line breaks after the column's last finite sample. */
const GAP_AFTER = 4;
/** The slab's first size, in columns; it doubles as series come. */
const FIRST_SLAB_CELLS = 16_384;

/** A point drawn: epoch milliseconds and the value, or null where the line has a gap (NaN, ±Inf, no sample). */
export type ChartPoint = [number, number | null];

/** One series of the answer, as the chart keeps it. */
export interface ChartSeries {
  metric: Labels;
  /** Its statistics over every sample, as `series_stats` writes them. */
  stats: SeriesStats;
  /** Its peak and dip (NaN left out) and its last value that is not NaN, in the order sent: what ranks it. */
  features: Features;
  /** How many of its samples are +Inf or -Inf. */
  infinities: number;
  /** Its infinite samples, at most one per column and sign: time (Unix seconds), sign; time, sign; … */
  marks: number[];
  /** Its columns' place in the slab. */
  slot: number;
}

/** The lowest and highest finite value of a group of series in each column where one of them has one. */
export interface Band {
  low: ChartPoint[];
  high: ChartPoint[];
}

export class ChartData {
  readonly series: ChartSeries[] = [];
  /** Samples left out of the drawing: their time is not one a date holds (an odd upstream's). */
  undrawable = 0;
  /** Column width in seconds: a whole number of steps. */
  private width: number;
  /** Columns per series. */
  private columns: number;
  private start: number;
  private cells: Float64Array;
  private flags: Uint8Array;

  constructor(range: QueryRange) {
    const valid =
      Number.isFinite(range.start) &&
      Number.isFinite(range.end) &&
      range.end >= range.start &&
      range.step > 0;
    const steps = valid
      ? Math.min(Number.MAX_SAFE_INTEGER, Math.floor((range.end - range.start) / range.step) + 1)
      : 1;
    const perColumn = Math.max(1, Math.ceil(steps / MAX_COLUMNS));
    this.start = valid ? range.start : 0;
    this.width = valid ? perColumn * range.step : 1;
    this.columns = Math.max(1, Math.ceil(steps / perColumn));
    const cells = Math.min(MAX_CELLS, Math.max(this.columns, FIRST_SLAB_CELLS));
    this.cells = new Float64Array(NUMBERS * cells);
    this.flags = new Uint8Array(cells);
  }

  /** One series of the answer: `values` as Prometheus sends them, [Unix seconds, "value"]. */
  add(metric: Labels, values: ReadonlyArray<readonly [number, string]>): void {
    const slot = this.newSlot();
    const stats = new SeriesStats();
    const added: ChartSeries = {
      metric,
      stats,
      features: { peak: Number.NaN, dip: Number.NaN, last: Number.NaN },
      infinities: 0,
      marks: [],
      slot,
    };
    let last = Number.NaN;
    for (const [time, text] of values) {
      const value = sampleValue(text);
      stats.add(time, value);
      if (!Number.isNaN(value)) last = value;
      if (value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY) added.infinities++;
      if (!(Math.abs(time * 1000) <= MAX_DATE_MS)) {
        this.undrawable++;
        continue;
      }
      this.place(added, time, value);
    }
    // SeriesStats's min and max leave NaN out and keep ±Inf, as the ranking's peak and dip do.
    added.features = { peak: stats.max, dip: stats.min, last };
    this.series.push(added);
  }

  /** The line of one series: each column's lowest and highest sample in time order, null where it breaks. */
  line(series: ChartSeries): ChartPoint[] {
    const points: ChartPoint[] = [];
    const base = series.slot * this.columns;
    for (let column = 0; column < this.columns; column++) {
      const flags = this.flags[base + column] as number;
      if (flags === 0) continue;
      const at = NUMBERS * (base + column);
      const cells = this.cells;
      if ((flags & FINITE) === 0) {
        points.push([(cells[at + MIN_TIME] as number) * 1000, null]);
        continue;
      }
      const minTime = cells[at + MIN_TIME] as number;
      const maxTime = cells[at + MAX_TIME] as number;
      const low: ChartPoint = [minTime * 1000, cells[at + MIN_VALUE] as number];
      const high: ChartPoint = [maxTime * 1000, cells[at + MAX_VALUE] as number];
      const [first, second] = minTime <= maxTime ? [low, high] : [high, low];
      if ((flags & GAP_BEFORE) !== 0) points.push([first[0], null]);
      points.push(first);
      if (minTime !== maxTime && low[1] !== high[1]) points.push(second);
      if ((flags & GAP_AFTER) !== 0) points.push([Math.max(minTime, maxTime) * 1000, null]);
    }
    return points;
  }

  /** The infinite samples of one series: at most one per column and sign, in the order sent. */
  infinities(series: ChartSeries): Array<{ time: number; sign: 1 | -1 }> {
    const marks: Array<{ time: number; sign: 1 | -1 }> = [];
    for (let at = 0; at < series.marks.length; at += 2) {
      marks.push({ time: (series.marks[at] as number) * 1000, sign: series.marks[at + 1] as 1 | -1 });
    }
    return marks;
  }

  /**
   * The range of `group` in each column where one of its series has a finite sample: the column's
   * lowest and highest value among them, at the time of its earliest such sample.
   */
  band(group: readonly ChartSeries[]): Band {
    const low = new Float64Array(this.columns).fill(Number.POSITIVE_INFINITY);
    const high = new Float64Array(this.columns).fill(Number.NEGATIVE_INFINITY);
    const time = new Float64Array(this.columns).fill(Number.POSITIVE_INFINITY);
    for (const series of group) {
      const base = series.slot * this.columns;
      for (let column = 0; column < this.columns; column++) {
        if (((this.flags[base + column] as number) & FINITE) === 0) continue;
        const at = NUMBERS * (base + column);
        low[column] = Math.min(low[column] as number, this.cells[at + MIN_VALUE] as number);
        high[column] = Math.max(high[column] as number, this.cells[at + MAX_VALUE] as number);
        const earliest = Math.min(this.cells[at + MIN_TIME] as number, this.cells[at + MAX_TIME] as number);
        time[column] = Math.min(time[column] as number, earliest);
      }
    }
    const band: Band = { low: [], high: [] };
    for (let column = 0; column < this.columns; column++) {
      if (!((low[column] as number) <= (high[column] as number))) continue;
      const at = (time[column] as number) * 1000;
      band.low.push([at, low[column] as number]);
      band.high.push([at, high[column] as number]);
    }
    return band;
  }

  /** One sample that a date can hold, into its column (and, infinite, among the marks). */
  private place(series: ChartSeries, time: number, value: number): void {
    const cell = series.slot * this.columns + this.columnOf(time);
    const at = NUMBERS * cell;
    const flags = this.flags[cell] as number;
    const cells = this.cells;
    if (Number.isFinite(value)) {
      if ((flags & FINITE) === 0) {
        cells[at + MIN_TIME] = time;
        cells[at + MIN_VALUE] = value;
        cells[at + MAX_TIME] = time;
        cells[at + MAX_VALUE] = value;
        this.flags[cell] = FINITE | (flags & GAP_BEFORE);
        return;
      }
      if (value < (cells[at + MIN_VALUE] as number)) {
        cells[at + MIN_TIME] = time;
        cells[at + MIN_VALUE] = value;
      }
      if (value > (cells[at + MAX_VALUE] as number)) {
        cells[at + MAX_TIME] = time;
        cells[at + MAX_VALUE] = value;
      }
      // A break between two finite samples of one column is narrower than a pixel: not drawn.
      this.flags[cell] = flags & ~GAP_AFTER;
      return;
    }
    if ((flags & FINITE) !== 0) this.flags[cell] = flags | GAP_AFTER;
    else if ((flags & GAP_BEFORE) === 0) {
      this.flags[cell] = GAP_BEFORE;
      cells[at + MIN_TIME] = time;
    }
    if (!Number.isNaN(value)) this.mark(series, time, value > 0 ? 1 : -1);
  }

  /** An infinite sample's mark, unless the series has one of that sign in the same column already. */
  private mark(series: ChartSeries, time: number, sign: 1 | -1): void {
    const marks = series.marks;
    const column = this.columnOf(time);
    // Samples come in time order: a mark of the same column and sign is among the last two.
    for (let at = Math.max(0, marks.length - 4); at < marks.length; at += 2) {
      if (marks[at + 1] === sign && this.columnOf(marks[at] as number) === column) return;
    }
    marks.push(time, sign);
  }

  /** The column of time `t` (times outside the range go to the first or last). */
  private columnOf(t: number): number {
    const index = Math.floor((t - this.start) / this.width);
    return index < 0 ? 0 : index >= this.columns ? this.columns - 1 : index;
  }

  /** Room for one more series' columns (every series' columns merged in pairs while they would not fit). */
  private newSlot(): number {
    const slot = this.series.length;
    while ((slot + 1) * this.columns > MAX_CELLS && this.columns > 1) this.coarsen();
    const needed = (slot + 1) * this.columns;
    if (needed > this.flags.length) {
      const size = Math.min(Math.max(MAX_CELLS, needed), Math.max(needed, 2 * this.flags.length));
      const cells = new Float64Array(NUMBERS * size);
      cells.set(this.cells);
      const flags = new Uint8Array(size);
      flags.set(this.flags);
      this.cells = cells;
      this.flags = flags;
    }
    this.flags.fill(0, slot * this.columns, needed);
    return slot;
  }

  /** Merges every series' columns in pairs, in place: a merged column is written at or before the first it reads. */
  private coarsen(): void {
    const columns = Math.ceil(this.columns / 2);
    for (const series of this.series) {
      const from = series.slot * this.columns;
      const to = series.slot * columns;
      for (let column = 0; column < columns; column++) {
        const a = from + 2 * column;
        const b = 2 * column + 1 < this.columns ? a + 1 : -1;
        this.merge(a, b, to + column);
      }
    }
    this.columns = columns;
    this.width *= 2;
  }

  /** Column `a` and the one after it, `b` (-1: none), into column `into` (at or before `a`). */
  private merge(a: number, b: number, into: number): void {
    const cells = this.cells;
    const fa = this.flags[a] as number;
    const fb = b < 0 ? 0 : (this.flags[b] as number);
    const [ia, ib, out] = [NUMBERS * a, NUMBERS * b, NUMBERS * into];
    let flags = (fa | fb) & FINITE;
    if (flags === 0) {
      // No finite sample: a gap where either had one, at the earlier's time.
      if (((fa | fb) & GAP_BEFORE) !== 0) {
        flags = GAP_BEFORE;
        cells[out + MIN_TIME] = cells[((fa & GAP_BEFORE) !== 0 ? ia : ib) + MIN_TIME] as number;
      }
      this.flags[into] = flags;
      return;
    }
    // The lowest and highest of either; on a tie the earlier column's sample stays, as it would have
    // had both come into one column.
    const both = (fa & FINITE) !== 0 && (fb & FINITE) !== 0;
    const lower =
      (fa & FINITE) === 0 || (both && (cells[ib + MIN_VALUE] as number) < (cells[ia + MIN_VALUE] as number))
        ? ib
        : ia;
    const higher =
      (fa & FINITE) === 0 || (both && (cells[ib + MAX_VALUE] as number) > (cells[ia + MAX_VALUE] as number))
        ? ib
        : ia;
    const minTime = cells[lower + MIN_TIME] as number;
    const minValue = cells[lower + MIN_VALUE] as number;
    const maxTime = cells[higher + MAX_TIME] as number;
    const maxValue = cells[higher + MAX_VALUE] as number;
    cells[out + MIN_TIME] = minTime;
    cells[out + MIN_VALUE] = minValue;
    cells[out + MAX_TIME] = maxTime;
    cells[out + MAX_VALUE] = maxValue;
    // The break before: the first column's, if it has anything; the break after: the second's.
    const before = fa !== 0 ? fa & GAP_BEFORE : fb & GAP_BEFORE;
    const after = (fb & FINITE) !== 0 ? fb & GAP_AFTER : fb !== 0 ? GAP_AFTER : fa & GAP_AFTER;
    this.flags[into] = flags | before | after;
  }
}

/** A sample's value as Prometheus writes it ("+Inf", "-Inf", "NaN", a decimal); anything else is NaN. */
export function sampleValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  return Number(text);
}
