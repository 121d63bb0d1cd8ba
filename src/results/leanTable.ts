import type { ChangePoint } from "./changePoint.js";
import { type CollapsedRow, collapseRows, type PlainRow } from "./collapse.js";
import type { Measure } from "./fit.js";
import { type LabelLookup, labelCells, labelLayout } from "./labelColumns.js";
import { rfc3339, tableNumber } from "./numbers.js";
import type { SeriesStats } from "./stats.js";
import { Rows } from "./table.js";

/** What a row is written from: a range series' statistics (and change), or an instant sample. */
export type TableItem =
  | { kind: "series"; metric: unknown; stats: SeriesStats; change?: ChangePoint | undefined }
  | { kind: "sample"; metric: unknown; value: number; time: number };

/**
 * `series_stats` without its rows: the labels every series shares, those another label determines, the
 * columns of each row, and the columns equal in every row, written once.
 */
export interface LeanHeading {
  /** An instant vector's evaluation time, when all its samples share it. */
  time?: string;
  common_labels: Record<string, unknown>;
  label_lookup?: LabelLookup;
  columns: string[];
  same?: Record<string, unknown>;
  /** Empty: the rows are written as far as they fit (see Rows). */
  rows: unknown[][];
}

/** A range row's columns after its label columns; `ended_at` only when some change ended. */
const RANGE_NUMBERS = ["min", "max", "avg", "last", "samples", "max_at", "changed_at", "before", "after"];
const INSTANT_NUMBERS = ["value"];

/**
 * The lean `series_stats` table of `order` (see labelLayout, collapseRows): its heading, and its rows
 * in that order (a collapsed row where its first series ranks), measured as far as asked. Every row is
 * decided here, over all the series (at most MAX_DESCRIBED of them): collapsing needs them all.
 */
export function leanTable(
  order: readonly TableItem[],
  measure: Measure,
): { heading: LeanHeading; rows: Rows } {
  const layout = labelLayout(order.map((item) => item.metric));
  const ended = order.some((item) => item.kind === "series" && item.change?.endedAt !== undefined);
  const isRange = order[0]?.kind !== "sample";
  const numberColumns = isRange ? [...RANGE_NUMBERS, ...(ended ? ["ended_at"] : [])] : INSTANT_NUMBERS;
  const plain: PlainRow[] = order.map((item) => ({
    labels: labelCells(item.metric, layout.columns),
    numbers:
      item.kind === "series" ? rangeNumbers(item.stats, item.change, ended) : [tableNumber(item.value)],
  }));
  const collapsed = collapseRows(plain, layout.columns.length);
  const columns = [...layout.columns, ...numberColumns];
  const same = sameColumns(collapsed, layout.columns.length, columns);
  const kept = columns.map((name) => !Object.hasOwn(same, name));
  const heading: LeanHeading = {
    ...timeOf(order),
    common_labels: layout.common,
    ...(layout.lookup === undefined ? {} : { label_lookup: layout.lookup }),
    columns: columns.filter((_, index) => kept[index]),
    ...(Object.keys(same).length > 0 ? { same } : {}),
    rows: [],
  };
  const seriesBefore = [0];
  for (const row of collapsed) seriesBefore.push((seriesBefore.at(-1) as number) + row.members);
  const rows = new Rows(
    collapsed.length,
    (index) => (collapsed[index] as CollapsedRow).cells.filter((_, column) => kept[column]),
    measure,
    (count) => seriesBefore[count] as number,
  );
  return { heading, rows };
}

function rangeNumbers(stats: SeriesStats, change: ChangePoint | undefined, ended: boolean): unknown[] {
  const numbers: unknown[] = [
    tableNumber(stats.min),
    tableNumber(stats.max),
    tableNumber(stats.avg),
    tableNumber(stats.last),
    stats.samples,
    Number.isFinite(stats.maxAt) ? rfc3339(stats.maxAt) : null,
    change === undefined ? null : rfc3339(change.at),
    change === undefined ? null : tableNumber(change.before),
    change === undefined ? null : tableNumber(change.after),
  ];
  if (ended) numbers.push(change?.endedAt === undefined ? null : rfc3339(change.endedAt));
  return numbers;
}

/** The columns after the labels whose cell is the same in every row (of more than one), with that cell. */
function sameColumns(
  rows: readonly CollapsedRow[],
  labelColumns: number,
  columns: readonly string[],
): Record<string, unknown> {
  if (rows.length < 2) return {};
  const same: Array<[string, unknown]> = [];
  for (let column = labelColumns; column < columns.length; column++) {
    const first = JSON.stringify(rows[0]?.cells[column]);
    if (rows.every((row) => JSON.stringify(row.cells[column]) === first)) {
      same.push([columns[column] as string, rows[0]?.cells[column]]);
    }
  }
  return Object.fromEntries(same);
}

function timeOf(order: readonly TableItem[]): { time?: string } {
  const first = order[0];
  if (first?.kind !== "sample") return {};
  const shared = order.every((item) => item.kind === "sample" && item.time === first.time);
  return shared ? { time: rfc3339(first.time) } : {};
}
