/**
 * Label sets as `/api/v1/series` answers them (`{"__name__": "up", "job": "node", ...}`), their order, and a
 * tally of which labels and metric names make up most of them (for the note of a cut list). Also the
 * code-point comparisons the other entry modules share, so every list sorts the way Prometheus (Go, which
 * compares strings byte by byte in UTF-8) would.
 */

import { isPlainObject } from "../util/json.js";
import { formatCount } from "./fit.js";

/** A label set: label name → value. */
export type Labels = Record<string, string>;

/**
 * `a` and `b` in Unicode code-point order (-1, 0 or 1): the order of their UTF-8 bytes, as Go sorts.
 * JavaScript's `<` compares UTF-16 code units, which puts U+10000 and above (surrogate pairs) before
 * U+E000–U+FFFF; this does not.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/**
 * The first code units that differ sit at the same place in both strings, so a surrogate there stands for
 * a code point above U+FFFF: it ranks after every other unit, and surrogates keep their order among themselves.
 */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** A label set's `name`/`value` pairs, sorted by name in code-point order. */
export function sortedPairs(labels: Labels): Array<[string, string]> {
  return Object.entries(labels).sort((a, b) => compareCodePoints(a[0], b[0]));
}

/** Two sorted pair lists, pair by pair (name, then value), a list before the lists it is a prefix of. */
export function comparePairs(a: ReadonlyArray<[string, string]>, b: ReadonlyArray<[string, string]>): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const [nameA, valueA] = a[i] as [string, string];
    const [nameB, valueB] = b[i] as [string, string];
    const order = compareCodePoints(nameA, nameB) || compareCodePoints(valueA, valueB);
    if (order !== 0) return order;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Two label sets as their sorted `name`/`value` pairs (see comparePairs). */
export function compareLabels(a: Labels, b: Labels): number {
  return comparePairs(sortedPairs(a), sortedPairs(b));
}

/**
 * A label set with its names sorted, or undefined when `raw` is not an object of strings. Built with
 * Object.fromEntries, so a label named `__proto__` stays a label (an assignment would set the prototype).
 */
export function labelSet(raw: unknown): Labels | undefined {
  if (!isPlainObject(raw)) return undefined;
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== "string") return undefined;
    pairs.push([name, value]);
  }
  return Object.fromEntries(pairs.sort((a, b) => compareCodePoints(a[0], b[0])));
}

/** A label's value, `""` when the set does not have it (as PromQL treats a missing label); never inherited. */
export function labelValue(labels: Labels, name: string): string {
  return Object.hasOwn(labels, name) ? (labels[name] as string) : "";
}

/** Series first by metric name (`__name__`; none sorts first), then by their other labels (see comparePairs). */
export function compareLabelSets(a: Labels, b: Labels): number {
  return (
    compareCodePoints(labelValue(a, "__name__"), labelValue(b, "__name__")) ||
    comparePairs(withoutName(a), withoutName(b))
  );
}

function withoutName(labels: Labels): Array<[string, string]> {
  return sortedPairs(labels).filter(([name]) => name !== "__name__");
}

/** Distinct values counted at most per label: a label past this is high-cardinality, the exact number matters little. */
export const MAX_VALUES_PER_LABEL = 100_000;
/**
 * Distinct values counted at most over all labels: bounds the tally's memory (a value kept costs its string
 * and ~40 bytes of Set entry, some tens of MB in all) when a list has many high-cardinality labels.
 */
export const MAX_VALUES = 500_000;
/** Label names, and metric names, counted at most. */
export const MAX_NAMES = 10_000;

/** One label in a LabelCardinality: its distinct values, a lower bound when `atLeast`. */
export interface LabelCount {
  name: string;
  values: number;
  atLeast: boolean;
}

/** One metric name in a LabelCardinality: its number of series. */
export interface NameCount {
  name: string;
  series: number;
}

/**
 * Which labels have the most distinct values, and which metric names the most series, over the label sets
 * added: what made a series list too long, and so what to match on to shorten it. Memory is bounded (see
 * MAX_VALUES_PER_LABEL, MAX_VALUES, MAX_NAMES); a count that hit a bound is reported as "at least".
 */
export class LabelCardinality {
  /** Series added. */
  series = 0;
  private readonly values = new Map<string, { seen: Set<string>; atLeast: boolean }>();
  private readonly names = new Map<string, number>();
  private valueCount = 0;
  /** Set once a label name or a metric name could not be counted because MAX_NAMES were. */
  private labelsDropped = false;
  private namesDropped = false;

  add(set: Labels): void {
    this.series++;
    for (const [name, value] of Object.entries(set)) {
      if (name === "__name__") {
        this.countName(value);
        continue;
      }
      let label = this.values.get(name);
      if (!label) {
        if (this.values.size >= MAX_NAMES) {
          this.labelsDropped = true;
          continue;
        }
        label = { seen: new Set(), atLeast: false };
        this.values.set(name, label);
      }
      if (label.seen.has(value)) continue;
      if (label.seen.size >= MAX_VALUES_PER_LABEL || this.valueCount >= MAX_VALUES) {
        label.atLeast = true;
        continue;
      }
      label.seen.add(value);
      this.valueCount++;
    }
  }

  private countName(name: string): void {
    const count = this.names.get(name);
    if (count !== undefined) this.names.set(name, count + 1);
    else if (this.names.size < MAX_NAMES) this.names.set(name, 1);
    else this.namesDropped = true;
  }

  /** Labels (never `__name__`), most distinct values first, then by name. */
  labels(): LabelCount[] {
    return [...this.values]
      .map(([name, { seen, atLeast }]) => ({ name, values: seen.size, atLeast }))
      .sort((a, b) => b.values - a.values || compareCodePoints(a.name, b.name));
  }

  /** Metric names, most series first, then by name. */
  metricNames(): NameCount[] {
    return [...this.names]
      .map(([name, series]) => ({ name, series }))
      .sort((a, b) => b.series - a.series || compareCodePoints(a.name, b.name));
  }

  /**
   * The `max` labels with the most values and the `max` metric names with the most series, in words for a
   * note: `labels with the most values: instance (1,204 values), pod (980 values); metric names with the
   * most series: http_requests_total (5,000 series)`. Empty when nothing was added.
   */
  words(max: number): string {
    const parts: string[] = [];
    const labels = this.labels().slice(0, max);
    if (labels.length > 0) {
      const listed = labels.map(
        (l) => `${l.name} (${l.atLeast ? "at least " : ""}${plural(l.values, "value")})`,
      );
      const more = this.labelsDropped ? ` (labels past the first ${formatCount(MAX_NAMES)} not counted)` : "";
      parts.push(`labels with the most values: ${listed.join(", ")}${more}`);
    }
    const names = this.metricNames().slice(0, max);
    if (names.length > 0) {
      const listed = names.map((n) => `${n.name} (${plural(n.series, "series")})`);
      const more = this.namesDropped ? ` (names past the first ${formatCount(MAX_NAMES)} not counted)` : "";
      parts.push(`metric names with the most series: ${listed.join(", ")}${more}`);
    }
    return parts.join("; ");
  }
}

/** `1 value`, `1,204 values`; `series` is its own plural. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${count === 1 || noun.endsWith("s") ? noun : `${noun}s`}`;
}
