import { isPlainObject } from "../util/json.js";
import { parseSample } from "./numbers.js";

/**
 * Facts about the elements of a Prometheus query result (`data.result`): a vector's samples
 * (`{metric, value}` or `{metric, histogram}`), a matrix's series (`{metric, values}` and/or
 * `{metric, histograms}`), or a scalar's / string's `[time, value]` pair. Anything else is carried
 * as it is.
 */

/** A vector sample, its value read: a float's, or a native histogram's observation count. */
export interface Sample {
  metric: unknown;
  time: number;
  value: number;
}

/** A matrix series, checked: every pair of `values` is `[time, "value"]`, of `histograms` `[time, {count, …}]`. */
export interface Series {
  metric: unknown;
  values: ReadonlyArray<[number, string]>;
  histograms: ReadonlyArray<[number, Record<string, unknown>]>;
}

/** Samples in one element: 1 for a vector sample, the length of a series' ranges, 0 for anything else. */
export function pointsIn(element: unknown): number {
  if (!isPlainObject(element)) return 0;
  if ("value" in element || "histogram" in element) return 1;
  const values = Array.isArray(element.values) ? element.values.length : 0;
  const histograms = Array.isArray(element.histograms) ? element.histograms.length : 0;
  return values + histograms;
}

/** The element as a vector sample, or undefined when it is not one Prometheus would send. */
export function asSample(element: unknown): Sample | undefined {
  if (!isPlainObject(element) || "values" in element || "histograms" in element) return undefined;
  const { metric, value, histogram } = element;
  if ("value" in element)
    return isFloatPair(value) ? { metric, time: value[0], value: parseSample(value[1]) } : undefined;
  return isHistogramPair(histogram)
    ? { metric, time: histogram[0], value: histogramValue(histogram[1]) }
    : undefined;
}

/** The element as a matrix series, or undefined when it is not one Prometheus would send. */
export function asSeries(element: unknown): Series | undefined {
  if (!isPlainObject(element) || "value" in element || "histogram" in element) return undefined;
  if (!("values" in element || "histograms" in element)) return undefined;
  const { metric, values = [], histograms = [] } = element;
  if (!Array.isArray(values) || !values.every(isFloatPair)) return undefined;
  if (!Array.isArray(histograms) || !histograms.every(isHistogramPair)) return undefined;
  return { metric, values, histograms };
}

/** A native histogram's value: its observation count. */
export function histogramValue(histogram: Record<string, unknown>): number {
  return parseSample(histogram.count);
}

function isFloatPair(pair: unknown): pair is [number, string] {
  return Array.isArray(pair) && pair.length === 2 && isTime(pair[0]) && typeof pair[1] === "string";
}

function isHistogramPair(pair: unknown): pair is [number, Record<string, unknown>] {
  return Array.isArray(pair) && pair.length === 2 && isTime(pair[0]) && isPlainObject(pair[1]);
}

function isTime(time: unknown): time is number {
  return typeof time === "number" && Number.isFinite(time);
}
