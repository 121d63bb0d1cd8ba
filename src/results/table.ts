import { isPlainObject } from "../util/json.js";
import type { Described } from "./description.js";
import { type Budget, type Cost, fitsIn, type Measure, NO_COST, type Sequence } from "./fit.js";
import { tableNumber } from "./numbers.js";
import type { SeriesStats } from "./stats.js";

/**
 * `series_stats`: every series of a cut result in a few tokens each. The labels all series share are
 * written once (`common_labels`); a row holds the labels that differ, then its numbers in the order of
 * `columns`, so that a row's labels merged with `common_labels` are exactly the series' labels.
 */
export interface SeriesTable {
  common_labels: Record<string, unknown>;
  columns: readonly string[];
  rows: unknown[][];
  /** An instant vector's evaluation time, when all its samples share it. */
  time?: number;
}

/** A range result's columns: the statistics of each series over the asked range. */
export const RANGE_COLUMNS = ["labels", "min", "max", "avg", "last", "samples", "max_at"] as const;
/** An instant vector's columns: the sample itself. */
export const INSTANT_COLUMNS = ["labels", "value"] as const;

/** The labels every one of `metrics` has, with the same value. */
export function commonLabels(metrics: readonly unknown[]): Record<string, unknown> {
  const [first, ...rest] = metrics;
  if (!isPlainObject(first)) return {};
  // fromEntries defines keys as own properties: a label named __proto__ stays a label.
  return Object.fromEntries(
    Object.entries(first).filter(([name, value]) =>
      rest.every((metric) => isPlainObject(metric) && Object.hasOwn(metric, name) && metric[name] === value),
    ),
  );
}

/** The labels of `metric` that are not among `common`. */
export function differingLabels(metric: unknown, common: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainObject(metric)) return {};
  return Object.fromEntries(Object.entries(metric).filter(([name]) => !Object.hasOwn(common, name)));
}

/** A range series' row, in RANGE_COLUMNS order. */
export function rangeRow(labels: Record<string, unknown>, stats: SeriesStats): unknown[] {
  return [
    labels,
    tableNumber(stats.min),
    tableNumber(stats.max),
    tableNumber(stats.avg),
    tableNumber(stats.last),
    stats.samples,
    Number.isNaN(stats.maxAt) ? null : stats.maxAt,
  ];
}

/** An instant sample's row, in INSTANT_COLUMNS order. */
function instantRow(labels: Record<string, unknown>, value: number): unknown[] {
  return [labels, tableNumber(value)];
}

/**
 * A table's rows, in the order given, measured only as far as asked: of an answer with many thousands
 * of series, only the rows that can fit are ever measured (and, for the legacy table, written).
 */
export class Rows {
  private readonly built: unknown[][] = [];
  private readonly totals: Cost[] = [];
  private readonly sequence: Sequence;

  constructor(
    /** How many rows there are. */
    readonly count: number,
    private readonly write: (index: number) => unknown[],
    measure: Measure,
    /** How many series the first `count` rows stand for (a collapsed row stands for several). */
    private readonly seriesIn: (count: number) => number = (count) => count,
  ) {
    // A row is written three levels down: series_stats, rows, the row.
    this.sequence = measure.sequence(3);
  }

  /** What the first `count` rows cost, written one after another. */
  cost(count: number): Cost {
    while (this.totals.length < count) this.totals.push(this.sequence.add(this.row(this.totals.length)));
    return count === 0 ? NO_COST : (this.totals[count - 1] as Cost);
  }

  /** How many of the first rows fit `room` (none further is built). */
  fitting(room: Budget): number {
    let count = 0;
    while (count < this.count && fitsIn(this.cost(count + 1), room)) count++;
    return count;
  }

  /** The first `count` rows. */
  first(count: number): unknown[][] {
    for (let index = this.built.length; index < count; index++) this.row(index);
    return this.built.slice(0, count);
  }

  /** How many series the first `count` rows stand for. */
  series(count: number): number {
    return this.seriesIn(count);
  }

  private row(index: number): unknown[] {
    const built = this.built[index];
    if (built !== undefined) return built;
    const row = this.write(index);
    this.built[index] = row;
    return row;
  }
}

/** The legacy (PYTHON_COMPAT) table's rows: a labels object and the numbers, as the table always was. */
export function legacyRows(
  order: readonly Described[],
  common: Record<string, unknown>,
  measure: Measure,
): Rows {
  return new Rows(
    order.length,
    (index) => {
      const item = order[index] as Described;
      const labels = differingLabels(item.metric, common);
      return item.kind === "series" ? rangeRow(labels, item.stats) : instantRow(labels, item.value);
    },
    measure,
  );
}
