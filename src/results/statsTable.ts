import type { Described } from "./description.js";
import type { Measure } from "./fit.js";
import { leanTable } from "./leanTable.js";
import type { QueryAsked } from "./queryAsked.js";
import {
  commonLabels,
  INSTANT_COLUMNS,
  legacyRows,
  RANGE_COLUMNS,
  type Rows,
  type SeriesTable,
} from "./table.js";

/** `series_stats` without its rows (an empty `rows` holds their place), and its rows as far as asked. */
export interface StatsTable {
  heading: { common_labels: Record<string, unknown>; rows: unknown[][] };
  rows: Rows;
}

/**
 * The `series_stats` table of the ranked series, in the answer's form: lean (label columns, lookups,
 * collapsed rows, see leanTable) unless `legacy`, where it is the table PYTHON_COMPAT has always written.
 */
export function statsTable(
  order: readonly Described[],
  isRange: boolean,
  form: QueryAsked["form"],
  measure: Measure,
): StatsTable {
  if (form !== "legacy") return leanTable(order, measure);
  const heading = legacyHeading(order, isRange);
  return { heading, rows: legacyRows(order, heading.common_labels, measure) };
}

/** The legacy table's heading: the labels every series shares, its columns, an instant vector's time. */
function legacyHeading(order: readonly Described[], isRange: boolean): SeriesTable {
  const table: SeriesTable = {
    common_labels: commonLabels(order.map((item) => item.metric)),
    columns: isRange ? RANGE_COLUMNS : INSTANT_COLUMNS,
    rows: [],
  };
  const first = order[0];
  if (first?.kind === "sample" && order.every((item) => item.kind === "sample" && item.time === first.time)) {
    table.time = first.time;
  }
  return table;
}
