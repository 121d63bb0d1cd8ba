import type { Labels } from "../results/labelSets.js";
import { type Order, ranked } from "../results/ranking.js";
import type { SeriesStats } from "../results/stats.js";
import { cutText } from "../util/text.js";
import { type Band, ChartData, type ChartPoint, type ChartSeries } from "./chartData.js";
import { MAX_THRESHOLD_LABEL_CHARS, MAX_THRESHOLDS } from "./thresholdLimits.js";
import { type Unit, unitOfQuery } from "./units.js";

export { type ChartPoint, sampleValue } from "./chartData.js";

/** One series of a Prometheus range query's answer (`resultType: matrix`). */
export interface MatrixSeries {
  metric: Labels;
  /** [Unix seconds, the value as Prometheus writes it: a decimal, "NaN", "+Inf", "-Inf"]. */
  values: ReadonlyArray<readonly [number, string]>;
}

export interface ChartLine {
  /** The labels that tell this series from the others drawn (`{pod="api-1"}`), or its metric's name, as drawn. */
  label: string;
  points: ChartPoint[];
}

/** What the renderer draws (render.ts, in its worker): data only, no pixels, every text bounded. */
export interface ChartPicture {
  /** At most MAX_TITLE_CHARS characters. */
  title: string;
  /** The first series in the order asked for, each a labelled line (at most MAX_LABELLED_LINES). */
  lines: ChartLine[];
  /** The series after those, drawn together, faintly: how many, and their range at each time. */
  others: ({ count: number } & Band) | undefined;
  /** Infinite samples: marked on the chart, never plotted as values. */
  infinities: Array<{ label: string; time: number; sign: 1 | -1 }>;
  /** The y axis's unit where the query's metric names say it (units.ts). */
  unit: Unit | undefined;
  /** Horizontal lines at given values, each labelled (at most MAX_THRESHOLDS, labels drawn as text). */
  thresholds: Threshold[];
}

/** A horizontal line across the chart: an alert's threshold, an SLO. */
export interface Threshold {
  value: number;
  /** Up to MAX_THRESHOLD_LABEL_CHARS characters, from the caller (untrusted: drawn as text only). */
  label?: string | undefined;
}

/** What one chart draws, in the order it draws it, and what its text says of the series drawn. */
export interface ChartModel extends ChartPicture {
  /** The series drawn as lines, in the order drawn: their labels and statistics. */
  drawn: Array<{ metric: Labels; stats: SeriesStats }>;
  /** The series drawn together in the band, in order: their labels and statistics, for the text's table. */
  banded: Array<{ metric: Labels; stats: SeriesStats }>;
  /** How many samples of the lines are infinite (each marked; those of one pixel column share a mark). */
  infinitiesMarked: number;
  /** Samples not drawn: their time is not one a date holds. */
  undrawable: number;
}

export type { Unit } from "./units.js";

/** A legend of more lines than this is no longer read: the rest are drawn faintly, as a band. */
export const MAX_LABELLED_LINES = 10;
/** A legend entry's most characters (the labels stay whole in `series_stats`): two entries fit a row. */
export const MAX_LEGEND_CHARS = 60;
/** The title's most characters: one line across the chart. */
export const MAX_TITLE_CHARS = 100;
export { MAX_THRESHOLD_LABEL_CHARS, MAX_THRESHOLDS } from "./thresholdLimits.js";

export interface ChartOptions {
  title: string;
  order: Order;
  limit?: number | undefined;
  /** The query drawn: the unit is read from it (default: from the first series' metric name). */
  query?: string | undefined;
  thresholds?: readonly Threshold[] | undefined;
}

/**
 * The chart of a range query's series, as read (ChartData): the first MAX_LABELLED_LINES in `order`
 * (most unusual first by default, as the answers rank them) as lines, the rest (up to `limit` series
 * in all) as one faint band with their count.
 */
export function chartOf(data: ChartData, options: ChartOptions): ChartModel {
  const all = data.series;
  const positions = ranked(
    all.map((one) => one.features),
    options.order,
  );
  // At most `limit` series in all (the answers' own limit), the first ones in the order.
  const ordered = positions
    .slice(0, options.limit ?? positions.length)
    .map((position) => all[position] as ChartSeries);
  const shown = ordered.slice(0, MAX_LABELLED_LINES);
  const rest = ordered.slice(MAX_LABELLED_LINES);
  const label = distinguishingLabels(
    shown.map(({ metric }) => metric),
    options.title,
  );
  const labels = legendEntries(shown.map(({ metric }) => label(metric)));
  return {
    title: cutText(drawnText(options.title), MAX_TITLE_CHARS),
    lines: shown.map((one, index) => ({ label: labels[index] as string, points: data.line(one) })),
    others: rest.length === 0 ? undefined : { count: rest.length, ...data.band(rest) },
    infinities: shown.flatMap((one, index) =>
      data.infinities(one).map((mark) => ({ label: labels[index] as string, ...mark })),
    ),
    unit: unitOfQuery(options.query ?? all[0]?.metric.__name__ ?? ""),
    thresholds: (options.thresholds ?? [])
      .filter(({ value }) => Number.isFinite(value))
      .slice(0, MAX_THRESHOLDS)
      .map(({ value, label }) => ({
        value,
        ...(label ? { label: cutMiddle(drawnText(label), MAX_THRESHOLD_LABEL_CHARS) } : {}),
      })),
    drawn: shown.map(({ metric, stats }) => ({ metric, stats })),
    banded: rest.map(({ metric, stats }) => ({ metric, stats })),
    infinitiesMarked: shown.reduce((sum, one) => sum + one.infinities, 0),
    undrawable: data.undrawable,
  };
}

/**
 * The chart of `series` given whole (tests, the benchmark): read as PlotRangeQuery reads an answer,
 * over the range their samples span, at the smallest step between two of them.
 */
export function chartModel(series: readonly MatrixSeries[], options: ChartOptions): ChartModel {
  const data = new ChartData(rangeOf(series));
  for (const one of series) data.add(one.metric, one.values);
  return chartOf(data, options);
}

function rangeOf(series: readonly MatrixSeries[]): { start: number; end: number; step: number } {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  let step = Number.POSITIVE_INFINITY;
  for (const { values } of series) {
    values.forEach(([time], index) => {
      start = Math.min(start, time);
      end = Math.max(end, time);
      const gap = time - (values[index - 1]?.[0] ?? Number.NEGATIVE_INFINITY);
      if (gap > 0) step = Math.min(step, gap);
    });
  }
  return start <= end
    ? { start, end, step: Number.isFinite(step) ? step : 1 }
    : { start: 0, end: 0, step: 1 };
}

/** The legend's entries: each within MAX_LEGEND_CHARS, and no two alike (a cut could make them so). */
function legendEntries(labels: readonly string[]): string[] {
  const entries = labels.map((label) => cutMiddle(drawnText(label), MAX_LEGEND_CHARS));
  return entries.map((entry, index) =>
    entries.indexOf(entry) === index
      ? entry
      : `${cutMiddle(drawnText(labels[index] as string), MAX_LEGEND_CHARS - 4)} #${index + 1}`,
  );
}

/**
 * `text` within `max` characters: its start and its end, an ellipsis between (the labels that tell
 * series apart often differ at their end). A surrogate pair is never split.
 */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor((max - 1) / 3);
  let from = text.length - tail;
  // A pair's second half would start the end kept: keep the whole pair out.
  if (isLowSurrogate(text.charCodeAt(from))) from++;
  return cutText(text, max - 1 - tail, "…") + text.slice(from);
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Text from the monitored system as the chart draws it: on one line (runs of whitespace and control
 * characters, which SVG cannot carry, become one space), and well formed (a lone surrogate is U+FFFD).
 */
export function drawnText(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces.
      .replace(/[\s\u0000-\u001f\u007f-\u009f\ufffe\uffff]+/g, " ")
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
  );
}

/**
 * How to name each series drawn: by the labels whose values differ among them
 * (`{pod="api-1", node="x"}`, the metric's name first when it differs: `up{job="a"}`), so a legend of
 * ten pods of one job does not repeat the job ten times; a series with none of them has them empty
 * (`{pod=""}`, as PromQL reads a missing label). When nothing differs (a single series), by the
 * chart's title (the query, unless the call gave one): never `{}`.
 */
function distinguishingLabels(metrics: readonly Labels[], title: string): (metric: Labels) => string {
  const names = new Set(metrics.flatMap((metric) => Object.keys(metric)));
  const differing = [...names]
    .filter((name) => new Set(metrics.map((metric) => metric[name] ?? "")).size > 1)
    .sort();
  const named = differing.includes("__name__");
  const others = differing.filter((name) => name !== "__name__");
  return (metric) => {
    if (differing.length === 0) return title;
    const present = others.filter((name) => metric[name] !== undefined);
    const name = named ? (metric.__name__ ?? "") : "";
    const shown = present.length > 0 || name !== "" ? present : others;
    const pairs = shown.map((label) => `${label}="${metric[label] ?? ""}"`);
    return pairs.length === 0 ? name || '{__name__=""}' : `${name}{${pairs.join(", ")}}`;
  };
}
