/**
 * The compact form of query answers (QueryAsked's `compact` form), whole or cut: a range answer says its
 * start, end and step once (`range`, RFC 3339), and each curve's `values` is an array aligned on
 * start + k × step instead of a `[time, "value"]` pair per point:
 *
 * - a number (SIGNIFICANT_DIGITS significant digits) or `"NaN"`, `"+Inf"`, `"-Inf"`: the sample at that time;
 * - `null`: no sample there (trailing nulls are dropped);
 * - `[first, second]`: a downsampled bucket's lowest and highest samples, in time order.
 *
 * A timestamp per point is what made a point cost most of its tokens (bench case
 * `cut-range-points-per-token`). An instant query's matrix (a range selector, no step) keeps its
 * `[time, value]` pairs, values rounded; a vector sample keeps its `value` pair, value rounded.
 */
import { isPlainObject } from "../util/json.js";
import type { Curve, QueryRange } from "./curves.js";
import { parseSample, rfc3339, sampleText, tableNumber } from "./numbers.js";
import type { QueryAsked } from "./queryAsked.js";

/** One entry of a compact curve. */
export type CompactValue = number | string | null | [number | string, number | string];

/** A compact range answer's `range`: the times `values[k]` stand for are start + k × step_seconds. */
export interface RangeHeader {
  start: string;
  end: string;
  step_seconds: number;
}

/** The header of a range answer whose curves are at `step` seconds (the asked step, or a coarser one). */
export function rangeHeader(range: QueryRange, step = range.step): RangeHeader {
  return { start: rfc3339(range.start), end: rfc3339(range.end), step_seconds: step };
}

/**
 * The answer's `data` with its `range` header after `resultType`, when the answer is written compact and
 * has an asked range; `data` as it is otherwise.
 */
export function withRangeHeader(
  data: Record<string, unknown>,
  asked: QueryAsked,
  step?: number,
): Record<string, unknown> {
  if (asked.form !== "compact" || asked.range === undefined || data.resultType !== "matrix") return data;
  return { resultType: data.resultType, range: rangeHeader(asked.range, step), ...data };
}

/** A cut curve at `factor` times its space's width, one entry per bucket. */
export function compactCurve(curve: Curve, factor: number): CompactValue[] {
  const values: CompactValue[] = curve.extremes(factor).map((bucket) => {
    if (bucket === undefined) return null;
    const [first, second] = bucket;
    return second === undefined ? tableNumber(first) : [tableNumber(first), tableNumber(second)];
  });
  return withoutTrailingNulls(values);
}

/**
 * Prometheus's `[time, "value"]` pairs as a compact curve on the range's grid; undefined when a time is
 * off the grid, repeats or lies outside the range (then the pairs are kept, values rounded: see
 * compactElement). Outside the range: an odd upstream's time far past the end would otherwise fill
 * the curve with nulls up to it, more than memory holds.
 */
export function gridValues(
  pairs: ReadonlyArray<readonly [number, string]>,
  range: QueryRange,
): CompactValue[] | undefined {
  const values: CompactValue[] = [];
  const last = Math.floor((range.end - range.start) / range.step + 1e-9);
  for (const [time, text] of pairs) {
    const k = Math.round((time - range.start) / range.step);
    // Prometheus writes times in milliseconds: a time on the grid is within a millisecond of it.
    if (k < values.length || k > last || Math.abs(range.start + k * range.step - time) > 0.001)
      return undefined;
    while (values.length < k) values.push(null);
    values.push(tableNumber(parseSample(text)));
  }
  return values;
}

/**
 * A whole answer's element as the answer writes it: in the compact form, a range series' values on the
 * grid (or its pairs rounded), a sample's value rounded; in the other forms, as Prometheus sent it.
 */
export function compactElement(element: unknown, asked: QueryAsked): unknown {
  if (asked.form !== "compact" || !isPlainObject(element)) return element;
  const { value, values } = element;
  if (isPair(value)) return roundedSample(element);
  if (!Array.isArray(values) || !values.every(isPair)) return element;
  const onGrid = asked.range && gridValues(values as Array<[number, string]>, asked.range);
  return {
    ...element,
    values: onGrid ?? values.map(([time, text]) => [time, roundedText(text)]),
  };
}

/** A vector sample with its value rounded (anything else as it is). */
export function roundedSample(element: unknown): unknown {
  if (!isPlainObject(element) || !isPair(element.value)) return element;
  return { ...element, value: [element.value[0], roundedText(element.value[1])] };
}

/**
 * How many samples a written `values` array stands for: one per Prometheus pair, or in a compact curve
 * (`compact`) one per number and two per bucket pair.
 */
export function pointsOfValues(values: readonly unknown[], compact: boolean): number {
  if (!compact) return values.length;
  let points = 0;
  for (const value of values) if (value !== null) points += Array.isArray(value) ? value.length : 1;
  return points;
}

function isPair(value: unknown): value is [number, string] {
  return (
    Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "string"
  );
}

function roundedText(text: string): string {
  return sampleText(parseSample(text));
}

function withoutTrailingNulls(values: CompactValue[]): CompactValue[] {
  let end = values.length;
  while (end > 0 && values[end - 1] === null) end--;
  return end === values.length ? values : values.slice(0, end);
}
