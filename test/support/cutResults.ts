import { fc } from "@fast-check/vitest";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import type { Budget } from "../../src/results/fit.js";
import { parseSample, rounded } from "../../src/results/numbers.js";
import { type QueryAsked, QueryResultCollector } from "../../src/results/queryResult.js";

/** A Prometheus query answer's `data`. */
export interface QueryData {
  resultType: string;
  result: unknown[];
}

/** A vector sample as Prometheus writes it. */
export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/** A matrix series as Prometheus writes it. */
export interface RangeSeries {
  metric: Record<string, string>;
  values: Array<[number, string]>;
}

/** What a cut result carries besides Prometheus's keys. */
export interface CutValue {
  truncated?: {
    note: string;
    cut_by: string;
    total: Record<string, number>;
    returned: Record<string, number>;
    order: string;
    rows_missing?: number;
    downsampled?: { asked_step_seconds: number; returned_step_seconds: number; method: string };
    significant_digits?: number;
  };
  resultType: string;
  result: unknown[];
  series_stats?: SeriesTableValue;
}

/** `series_stats` as written (the lean table; `time` a number in the legacy one). */
export interface SeriesTableValue {
  time?: number | string;
  common_labels: Record<string, string>;
  label_lookup?: Record<string, Record<string, Record<string, unknown>>>;
  columns: string[];
  same?: Record<string, unknown>;
  rows: unknown[][];
}

function define(record: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
}

/** One series as a lean table gives it back: its labels whole, and its cells by column name (`same` included). */
export interface TableSeries {
  labels: Record<string, unknown>;
  cells: Record<string, unknown>;
}

/**
 * Every series a lean `series_stats` table stands for, in its rows' order: a collapsed row (an array in
 * one label column) gives one series per value, labels merged from common_labels, the row and the lookup.
 */
export function tableSeries(table: SeriesTableValue): TableSeries[] {
  const statistics = new Set([
    "min",
    "max",
    "avg",
    "last",
    "samples",
    "max_at",
    "changed_at",
    "before",
    "after",
    "ended_at",
    "value",
  ]);
  const series: TableSeries[] = [];
  for (const row of table.rows) {
    const arrayAt = row.findIndex((cell) => Array.isArray(cell));
    const members = arrayAt < 0 ? [undefined] : (row[arrayAt] as unknown[]);
    for (const member of members) {
      // Defined, not assigned: a label named __proto__ stays a label.
      const labels: Record<string, unknown> = Object.fromEntries(Object.entries(table.common_labels));
      const cells: Record<string, unknown> = { ...table.same };
      table.columns.forEach((name, index) => {
        const cell = index === arrayAt ? member : row[index];
        if (statistics.has(name)) cells[name] = cell;
        else if (cell !== null) define(labels, name, cell);
      });
      for (const [key, entries] of Object.entries(table.label_lookup ?? {})) {
        const entry = Object.hasOwn(entries, labels[key] as string) ? entries[labels[key] as string] : {};
        for (const [name, value] of Object.entries(entry ?? {})) define(labels, name, value);
      }
      series.push({ labels, cells });
    }
  }
  return series;
}

/** Streams an answer's elements into a collector (default: a new one for `asked`), as the data plane does, and finishes it. */
export function collect(
  data: QueryData,
  budget: Budget,
  asked: QueryAsked,
  collector = new QueryResultCollector(budget, asked),
) {
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const element of data.result) {
    const raw = encoder.encode(JSON.stringify(element));
    bytes += raw.length + 1;
    collector.element(raw);
  }
  return collector.finish({ ...data, result: [] }, bytes + 40);
}

/** What a client sees of the rendered result: the text items, the first parsed, structuredContent. */
export async function rendered(
  data: QueryData,
  budget: Budget,
  asked: QueryAsked,
  indent?: number,
): Promise<{ texts: string[]; json: CutValue; structured: CutValue }> {
  const out = await renderToolResult(collect(data, budget, asked), budget, indent);
  const texts = out.content.map((item) => (item as { text: string }).text);
  return {
    texts,
    json: JSON.parse(texts[0] as string) as CutValue,
    structured: out.structuredContent as unknown as CutValue,
  };
}

/** A cut value's number as a number (the table writes NaN and the infinities as Prometheus spells them). */
export function tableValue(cell: unknown): number {
  return typeof cell === "number" ? cell : parseSample(cell);
}

/** The statistics a table row must hold for these values, computed the plain way. */
export function plainStats(values: ReadonlyArray<[number, string]>) {
  const numbers = values.map(([time, text]) => ({ time, value: parseSample(text) }));
  const counted = numbers.filter(({ value }) => !Number.isNaN(value));
  let min = Number.NaN;
  let max = Number.NaN;
  let maxAt = Number.NaN;
  for (const { time, value } of counted) {
    if (Number.isNaN(min) || value < min) min = value;
    if (Number.isNaN(max) || value > max) {
      max = value;
      maxAt = time;
    }
  }
  const hasPositive = counted.some(({ value }) => value === Number.POSITIVE_INFINITY);
  const hasNegative = counted.some(({ value }) => value === Number.NEGATIVE_INFINITY);
  let avg = Number.NaN;
  if (counted.length > 0) {
    if (hasPositive && hasNegative) avg = Number.NaN;
    else if (hasPositive) avg = Number.POSITIVE_INFINITY;
    else if (hasNegative) avg = Number.NEGATIVE_INFINITY;
    else avg = counted.reduce((sum, { value }) => sum + value, 0) / counted.length;
  }
  const last = [...numbers].sort((a, b) => a.time - b.time).at(-1)?.value ?? Number.NaN;
  return { min, max, avg, last, samples: values.length, maxAt };
}

/** True when two statistics agree once rounded as the table rounds them (avg: up to float summation order). */
export function sameStatistic(actual: number, expected: number, relative = 0, absolute = 0): boolean {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  const want = rounded(expected);
  if (actual === want) return true;
  const scale = Math.max(Math.abs(want), Number.MIN_VALUE);
  // Rounding to 5 significant digits moves a value by at most half a unit of its fifth digit.
  return Math.abs(actual - expected) <= scale * (5e-5 + relative) + absolute;
}

/** Labels a series may have: a few shared, a few that differ, some awkward. */
const labelValue = fc.oneof(
  fc.constantFrom("a", "b", "checkout", "payments", "10.0.3.17:9100", "x y+z/path?a=1", "__proto__", ""),
  fc.string({ maxLength: 12 }),
);

/** A sample value as Prometheus writes it, NaN and the infinities included. */
export const sampleText = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).map(String),
  },
  { weight: 1, arbitrary: fc.constantFrom("NaN", "+Inf", "-Inf", "0", "1") },
);

/**
 * A matrix answer whose series have distinct label sets and points on the step grid of `range`: each
 * series a stretch of the range (every `stride`-th step), its values a curve or a cycle through a few
 * Prometheus values (NaN and the infinities among them).
 */
export function matrixAnswer(range: { start: number; end: number; step: number }, maxSeries = 40) {
  const steps = Math.floor((range.end - range.start) / range.step) + 1;
  const series = fc.record({
    extra: fc.dictionary(fc.constantFrom("pod", "node", "code", "le", "__proto__"), labelValue, {
      maxKeys: 3,
    }),
    from: fc.integer({ min: 0, max: steps - 1 }),
    length: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: steps })),
    stride: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 4 })),
    palette: fc.option(fc.array(sampleText, { minLength: 1, maxLength: 6 }), { nil: undefined }),
    level: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    amplitude: fc.double({ min: 0, max: 1e3, noNaN: true }),
  });
  return fc.array(series, { maxLength: maxSeries }).map((all) => ({
    resultType: "matrix",
    result: all.map(({ extra, from, length, stride, palette, level, amplitude }, index) => {
      const values: Array<[number, string]> = [];
      for (let k = from, i = 0; k < Math.min(steps, from + length); k += stride, i++) {
        const value = palette
          ? (palette[(i * 7 + index) % palette.length] as string)
          : String(level + amplitude * Math.sin(i / 9));
        values.push([range.start + k * range.step, value]);
      }
      // `id` keeps label sets distinct, as Prometheus's are.
      return { metric: { __name__: "metric_total", job: "api", ...extra, id: String(index) }, values };
    }),
  }));
}

/** A vector answer of distinct samples at one time. */
export function vectorAnswer(time: number, maxSamples = 120) {
  return fc
    .array(fc.tuple(fc.dictionary(fc.constantFrom("pod", "node"), labelValue, { maxKeys: 2 }), sampleText), {
      maxLength: maxSamples,
    })
    .map((samples) => ({
      resultType: "vector",
      result: samples.map(([extra, value], index) => ({
        metric: { __name__: "up", job: "node", ...extra, id: String(index) },
        value: [time, value],
      })),
    }));
}

/** The samples a vector's `series_stats` stands for (labels whole, the value as a number), ordered by labels. */
export function vectorTableSamples(
  table: SeriesTableValue,
): Array<{ metric: Record<string, unknown>; value: number }> {
  return byLabels(
    tableSeries(table).map(({ labels, cells }) => ({ metric: labels, value: tableValue(cells.value) })),
  );
}

/** Prometheus's samples as `vectorTableSamples` gives them back: the value rounded as the table rounds it. */
export function roundedSamples(
  samples: readonly Sample[],
): Array<{ metric: Record<string, unknown>; value: number }> {
  return byLabels(samples.map(({ metric, value }) => ({ metric, value: rounded(parseSample(value[1])) })));
}

function byLabels<T extends { metric: Record<string, unknown> }>(items: T[]): T[] {
  const key = (item: T) => JSON.stringify(Object.entries(item.metric).sort(([a], [b]) => (a < b ? -1 : 1)));
  return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
