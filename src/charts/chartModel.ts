import type { Labels } from "../results/labelSets.js";
import { type Features, type Order, ranked } from "../results/ranking.js";

/** One series of a Prometheus range query's answer (`resultType: matrix`). */
export interface MatrixSeries {
  metric: Labels;
  /** [Unix seconds, the value as Prometheus writes it: a decimal, "NaN", "+Inf", "-Inf"]. */
  values: ReadonlyArray<readonly [number, string]>;
}

/** A point drawn: epoch milliseconds and the value, or null where the line has a gap (NaN, no sample). */
export type ChartPoint = [number, number | null];

export interface ChartLine {
  /** The labels that tell this series from the others drawn (`{pod="api-1"}`), or its metric's name. */
  label: string;
  points: ChartPoint[];
}

/** What one chart draws, in the order it draws it: data only, no pixels (render.ts draws it). */
export interface ChartModel {
  title: string;
  /** The first series in the order asked for, each a labelled line (at most MAX_LABELLED_LINES). */
  lines: ChartLine[];
  /** The series after those, drawn together, faintly: how many, and their range at each time. */
  others: { count: number; low: ChartPoint[]; high: ChartPoint[] } | undefined;
  /** Infinite samples: marked on the chart, never plotted as values. */
  infinities: Array<{ label: string; time: number; sign: 1 | -1 }>;
  /** The y axis's unit where the metric's name says it (`_bytes`, `_seconds`, a ratio). */
  unit: Unit | undefined;
  /** The series drawn as lines, as given, in the order drawn. */
  drawn: MatrixSeries[];
}

export type Unit = "bytes" | "seconds" | "ratio" | "percent";

/** A legend of more lines than this is no longer read: the rest are drawn faintly, as a band. */
export const MAX_LABELLED_LINES = 10;

/**
 * The chart of a range query's series: the first MAX_LABELLED_LINES in `order` (most unusual first by
 * default, as the answers rank them) as lines, the rest (up to `limit` series in all) as one faint
 * band with their count.
 */
export function chartModel(
  series: readonly MatrixSeries[],
  options: { title: string; order: Order; limit?: number | undefined },
): ChartModel {
  const parsed = series.map((one) => ({ one, metric: one.metric, samples: one.values.map(sample) }));
  const positions = ranked(
    parsed.map(({ samples }) => features(samples)),
    options.order,
  );
  // At most `limit` series in all (the answers' own limit), the first ones in the order.
  const ordered = positions
    .slice(0, options.limit ?? positions.length)
    .map((position) => parsed[position] as (typeof parsed)[number]);
  const shown = ordered.slice(0, MAX_LABELLED_LINES);
  const rest = ordered.slice(MAX_LABELLED_LINES);
  const labels = distinguishingLabels(shown.map(({ metric }) => metric));
  const lines = shown.map(({ metric, samples }) => ({
    label: labels(metric),
    points: samples.map(([time, value]): ChartPoint => [time, Number.isFinite(value) ? value : null]),
  }));
  const infinities = shown.flatMap(({ metric, samples }) =>
    samples
      .filter(([, value]) => value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY)
      .map(([time, value]) => ({
        label: labels(metric),
        time,
        sign: value > 0 ? (1 as const) : (-1 as const),
      })),
  );
  return {
    title: options.title,
    lines,
    others: rest.length === 0 ? undefined : band(rest.map(({ samples }) => samples)),
    infinities,
    unit: unitOf(series[0]?.metric.__name__ ?? options.title),
    drawn: shown.map(({ one }) => one),
  };
}

/** A sample as [epoch ms, value]. */
function sample([seconds, text]: readonly [number, string]): [number, number] {
  return [seconds * 1000, sampleValue(text)];
}

/** A sample's value as Prometheus writes it ("+Inf", "-Inf", "NaN", a decimal); anything else is NaN. */
export function sampleValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/** What the ranking needs of a series: its peak, dip and last value, NaN left out. */
function features(samples: ReadonlyArray<[number, number]>): Features {
  let peak = Number.NaN;
  let dip = Number.NaN;
  let last = Number.NaN;
  for (const [, value] of samples) {
    if (Number.isNaN(value)) continue;
    peak = Number.isNaN(peak) || value > peak ? value : peak;
    dip = Number.isNaN(dip) || value < dip ? value : dip;
    last = value;
  }
  return { peak, dip, last };
}

/** The lowest and highest finite value of `series` at each time any of them has one. */
function band(series: ReadonlyArray<ReadonlyArray<[number, number]>>): NonNullable<ChartModel["others"]> {
  const range = new Map<number, [number, number]>();
  for (const samples of series) {
    for (const [time, value] of samples) {
      if (!Number.isFinite(value)) continue;
      const seen = range.get(time);
      if (seen === undefined) range.set(time, [value, value]);
      else range.set(time, [Math.min(seen[0], value), Math.max(seen[1], value)]);
    }
  }
  const times = [...range.keys()].sort((a, b) => a - b);
  return {
    count: series.length,
    low: times.map((time) => [time, (range.get(time) as [number, number])[0]]),
    high: times.map((time) => [time, (range.get(time) as [number, number])[1]]),
  };
}

/**
 * How to name each series drawn: by the labels whose values differ among them (`{pod="a", node="x"}`),
 * so a legend of ten pods of one job does not repeat the job ten times; by the metric's name, or `{}`,
 * when nothing differs.
 */
function distinguishingLabels(metrics: readonly Labels[]): (metric: Labels) => string {
  const names = new Set(metrics.flatMap((metric) => Object.keys(metric)));
  const differing = [...names]
    .filter((name) => new Set(metrics.map((metric) => metric[name] ?? "")).size > 1)
    .sort();
  return (metric) => {
    if (differing.length === 0) return metric.__name__ ?? "{}";
    const pairs = differing
      .filter((name) => metric[name] !== undefined)
      .map((name) => `${name}="${metric[name]}"`);
    return `{${pairs.join(", ")}}`;
  };
}

/** The unit a metric's name states, by Prometheus's naming conventions. */
export function unitOf(name: string): Unit | undefined {
  if (/_bytes(_total|_sum|_count|_bucket)?\b/.test(name)) return "bytes";
  if (/_seconds(_total|_sum|_count|_bucket)?\b/.test(name)) return "seconds";
  if (/_ratio\b/.test(name)) return "ratio";
  if (/_percent\b/.test(name)) return "percent";
  return undefined;
}
