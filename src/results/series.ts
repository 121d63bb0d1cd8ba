import { isPlainObject } from "../json.js";
import type { Ranking } from "./selection.js";

/**
 * Facts about the elements of a Prometheus query result (`data.result`): a vector's samples
 * (`{metric, value}` or `{metric, histogram}`), a matrix's series (`{metric, values}` and/or
 * `{metric, histograms}`), or a scalar's / string's `[time, value]` pair. Anything else is carried
 * as it is and ranked last.
 */

/** Prometheus writes sample values as strings, with `+Inf`, `-Inf` and `NaN` spelled its own way. */
function sampleValue(text: unknown): number {
  if (typeof text !== "string") return Number.NEGATIVE_INFINITY;
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  const value = Number.parseFloat(text);
  return Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value;
}

/** A native histogram sample `[time, {count, sum, buckets}]` ranks by its count. */
function histogramValue(sample: unknown): number {
  if (!Array.isArray(sample)) return Number.NEGATIVE_INFINITY;
  const histogram = sample[1];
  return isPlainObject(histogram) ? sampleValue(histogram.count) : Number.NEGATIVE_INFINITY;
}

function pairValue(sample: unknown): number {
  return Array.isArray(sample) ? sampleValue(sample[1]) : Number.NEGATIVE_INFINITY;
}

function peak(samples: unknown, sampleValueOf: (sample: unknown) => number): number {
  let highest = Number.NEGATIVE_INFINITY;
  if (!Array.isArray(samples)) return highest;
  for (const sample of samples) {
    const value = sampleValueOf(sample);
    if (value > highest) highest = value;
  }
  return highest;
}

/** The value a series ranks by: a sample's value, or the highest value of a range. */
export function rankValue(element: unknown): number {
  if (!isPlainObject(element)) return Number.NEGATIVE_INFINITY;
  if ("value" in element) return pairValue(element.value);
  if ("histogram" in element) return histogramValue(element.histogram);
  return Math.max(peak(element.values, pairValue), peak(element.histograms, histogramValue));
}

/** Largest first; ties (and values that are not numbers, ranked lowest) keep Prometheus's order. */
export const LARGEST_FIRST: Ranking<unknown, number> = {
  keyOf: rankValue,
  compare: (a, b) => (a === b ? 0 : a > b ? -1 : 1),
};

/** Samples in one element: 1 for a vector sample, the length of a series' ranges, 0 for anything else. */
export function pointsIn(element: unknown): number {
  if (!isPlainObject(element)) return 0;
  if ("value" in element || "histogram" in element) return 1;
  const values = Array.isArray(element.values) ? element.values.length : 0;
  const histograms = Array.isArray(element.histograms) ? element.histograms.length : 0;
  return values + histograms;
}

/** A series with every `every`-th point of its ranges kept (the first, then every `every`-th after it). */
export function thinned(series: Record<string, unknown>, every: number): Record<string, unknown> {
  const keep = (samples: unknown): unknown =>
    Array.isArray(samples) ? samples.filter((_, index) => index % every === 0) : samples;
  const out: Record<string, unknown> = { ...series };
  if ("values" in series) out.values = keep(series.values);
  if ("histograms" in series) out.histograms = keep(series.histograms);
  return out;
}

/** True for a matrix series whose points can be thinned. */
export function isThinnable(element: unknown): element is Record<string, unknown> {
  return isPlainObject(element) && pointsIn(element) > 1 && !("value" in element || "histogram" in element);
}
