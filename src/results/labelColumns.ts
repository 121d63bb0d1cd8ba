import { isPlainObject } from "../util/json.js";
import { commonLabels } from "./table.js";

/** Labels another label determines, by its values: `{node: {"ip-10-0-1-5": {instance: "10.0.1.5:10250"}}}`. */
export type LabelLookup = Record<string, Record<string, Record<string, unknown>>>;

/**
 * Where a table writes each label of its series: once for all (`common`), in a column of its own
 * (`columns`, `null` where a series lacks it), or in `lookup` under the value of the key column that
 * determines it. Merging the three gives exactly each series' labels.
 */
export interface LabelLayout {
  common: Record<string, unknown>;
  columns: string[];
  lookup: LabelLookup | undefined;
}

/** What a label is across the series: its values (as written) and whether every series has it as a string. */
interface LabelSpread {
  name: string;
  distinct: Set<string>;
  allStrings: boolean;
}

/** A key column has at most this share of as many distinct values as there are series. */
const MAX_KEY_SHARE = 1 / 2;

/**
 * The layout of `metrics`' labels. Labels that differ are taken fewest distinct values first (ties by
 * name); each goes into the lookup under the first column already taken that determines it (every value
 * of that column goes with one value of the label, or always with its absence), when that column has at
 * most MAX_KEY_SHARE as many values as there are series and the lookup's text is shorter than the
 * column's would be; otherwise it becomes a column. A column that a column with more values determines
 * then moves under it on the same terms (see underLaterKeys). Columns are written most distinct values
 * first: the label that tells series apart leads the row.
 */
export function labelLayout(metrics: readonly unknown[]): LabelLayout {
  const labels = metrics.map((metric) => (isPlainObject(metric) ? metric : {}));
  const common = commonLabels(metrics);
  const spreads = differing(labels, common).sort(
    (a, b) => a.distinct.size - b.distinct.size || compare(a.name, b.name),
  );
  const keys: LabelSpread[] = [];
  const determined = new Map<string, string[]>();
  for (const spread of spreads) {
    const key = keys.find((candidate) => isKeyFor(candidate, spread, labels));
    if (key === undefined) {
      keys.push(spread);
      continue;
    }
    determined.set(key.name, [...(determined.get(key.name) ?? []), spread.name]);
  }
  const columns = underLaterKeys(keys, determined, labels).map((key) => key.name);
  return { common, columns, lookup: lookupOf(determined, labels) };
}

/**
 * The key columns left once each key that a key with as many values or more determines (a container's
 * namespace) has moved into the lookup under it, with the labels under it, when that is shorter: taken
 * first, such a key had no column to go under. Keys are tried most distinct values first, each under a
 * key that has not moved (a key that moved is determined by the one it went under, which then
 * determines this one too). Returns the columns in their written order, most distinct values first.
 */
function underLaterKeys(
  keys: readonly LabelSpread[],
  determined: Map<string, string[]>,
  labels: ReadonlyArray<Record<string, unknown>>,
): LabelSpread[] {
  const byValues = [...keys].sort((a, b) => b.distinct.size - a.distinct.size || compare(a.name, b.name));
  const moved = new Set<LabelSpread>();
  for (const spread of byValues) {
    const key = byValues.find(
      (candidate) =>
        candidate !== spread &&
        !moved.has(candidate) &&
        candidate.distinct.size >= spread.distinct.size &&
        isKeyFor(candidate, spread, labels),
    );
    if (key === undefined) continue;
    moved.add(spread);
    const names = [spread.name, ...(determined.get(spread.name) ?? [])];
    determined.delete(spread.name);
    determined.set(key.name, [...(determined.get(key.name) ?? []), ...names]);
  }
  return byValues.filter((spread) => !moved.has(spread));
}

/** The cells of a series' label columns: each label's value, or null where it has none. */
export function labelCells(metric: unknown, columns: readonly string[]): unknown[] {
  const labels = isPlainObject(metric) ? metric : {};
  return columns.map((name) => (Object.hasOwn(labels, name) ? labels[name] : null));
}

function differing(labels: ReadonlyArray<Record<string, unknown>>, common: Record<string, unknown>) {
  const spreads = new Map<string, LabelSpread>();
  for (const metric of labels) {
    for (const [name, value] of Object.entries(metric)) {
      if (Object.hasOwn(common, name)) continue;
      let spread = spreads.get(name);
      if (spread === undefined) {
        spread = { name, distinct: new Set(), allStrings: true };
        spreads.set(name, spread);
      }
      spread.distinct.add(JSON.stringify(value) ?? "null");
      if (typeof value !== "string") spread.allStrings = false;
    }
  }
  for (const spread of spreads.values()) {
    if (labels.some((metric) => !Object.hasOwn(metric, spread.name))) spread.allStrings = false;
  }
  return [...spreads.values()];
}

/** Whether `label` goes into the lookup under `key`: `key` determines it, and the lookup is shorter. */
function isKeyFor(key: LabelSpread, label: LabelSpread, labels: ReadonlyArray<Record<string, unknown>>) {
  if (!key.allStrings || key.distinct.size > labels.length * MAX_KEY_SHARE) return false;
  const cellOfKey = new Map<string, string>();
  let columnChars = 0;
  for (const metric of labels) {
    const cell = Object.hasOwn(metric, label.name) ? JSON.stringify(metric[label.name]) : "null";
    columnChars += (cell?.length ?? 4) + 1;
    const keyValue = metric[key.name] as string;
    const known = cellOfKey.get(keyValue);
    if (known === undefined) cellOfKey.set(keyValue, cell ?? "null");
    else if (known !== cell) return false;
  }
  // Each entry writes `"label":value,` beside the key value's entry, which the first label pays for.
  let lookupChars = 0;
  for (const [keyValue, cell] of cellOfKey) {
    lookupChars += JSON.stringify(label.name).length + cell.length + 2 + JSON.stringify(keyValue).length + 4;
  }
  return lookupChars < columnChars;
}

function lookupOf(
  determined: ReadonlyMap<string, string[]>,
  labels: ReadonlyArray<Record<string, unknown>>,
): LabelLookup | undefined {
  if (determined.size === 0) return undefined;
  // fromEntries defines keys as own properties: a value or a label named __proto__ stays one.
  const lookup: Array<[string, Record<string, Record<string, unknown>>]> = [];
  for (const [key, names] of [...determined].sort(([a], [b]) => compare(a, b))) {
    const entries = new Map<string, Record<string, unknown>>();
    for (const metric of labels) {
      const keyValue = metric[key] as string;
      if (entries.has(keyValue)) continue;
      entries.set(
        keyValue,
        Object.fromEntries(
          names.filter((name) => Object.hasOwn(metric, name)).map((name) => [name, metric[name]]),
        ),
      );
    }
    lookup.push([key, Object.fromEntries(entries)]);
  }
  return Object.fromEntries(lookup);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
