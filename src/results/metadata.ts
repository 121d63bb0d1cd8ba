/**
 * Metric metadata as Prometheus's `/api/v1/metadata` answers it (`data`: metric name → the distinct
 * `{type, help, unit}` its targets expose), flattened into one sorted entry per metric and description.
 */

import { isPlainObject } from "../util/json.js";
import { compareCodePoints } from "./labelSets.js";

/** One description of a metric; `unit` is left out when empty (it nearly always is). */
export interface MetadataEntry {
  metric: string;
  /** `counter`, `gauge`, `histogram`, `gaugehistogram`, `summary`, `info`, `stateset` or `unknown`. */
  type: string;
  help: string;
  unit?: string;
}

/**
 * One entry per distinct (metric, type, help, unit): a metric has several when its targets disagree (two
 * versions of an exporter with different help texts), one otherwise. Sorted by metric, type, help, then
 * unit, in code-point order. Undefined when `data` is not an object of arrays; an element that is not an
 * object is skipped, a field that is not a string read as empty.
 *
 * @example
 * ```ts
 * metadataEntries({ go_goroutines: [{ type: "gauge", help: "Number of goroutines that currently exist.", unit: "" }] });
 * // [{ metric: "go_goroutines", type: "gauge", help: "Number of goroutines that currently exist." }]
 * ```
 */
export function metadataEntries(data: unknown): MetadataEntry[] | undefined {
  if (!isPlainObject(data)) return undefined;
  const entries: MetadataEntry[] = [];
  const seen = new Set<string>();
  for (const [metric, list] of Object.entries(data)) {
    if (!Array.isArray(list)) return undefined;
    for (const raw of list) {
      if (!isPlainObject(raw)) continue;
      const type = stringOf(raw.type);
      const help = stringOf(raw.help);
      const unit = stringOf(raw.unit);
      const key = JSON.stringify([metric, type, help, unit]);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push({ metric, type, help, ...(unit !== "" ? { unit } : {}) });
    }
  }
  return entries.sort(compareMetadata);
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** By metric, type, help, then unit (none first), in code-point order. */
export function compareMetadata(a: MetadataEntry, b: MetadataEntry): number {
  return (
    compareCodePoints(a.metric, b.metric) ||
    compareCodePoints(a.type, b.type) ||
    compareCodePoints(a.help, b.help) ||
    compareCodePoints(a.unit ?? "", b.unit ?? "")
  );
}
