import { formatDuration } from "../promql/advice.js";
import type { Suggestion } from "../promql/adviceContext.js";
import { formatSize } from "../util/text.js";
import { type Budget, budgetWords, formatCount } from "./fit.js";
import { SIGNIFICANT_DIGITS } from "./numbers.js";
import type { Order } from "./ranking.js";

/** What a cut query result says in its note. */
export interface CutFacts {
  cutBy: "size" | "limit";
  limit?: number | undefined;
  budget: Budget;
  /** A range result (series with curves) or an instant vector (samples). */
  range: boolean;
  total: { series: number; points: number; bytes: number };
  /** Series (or samples) in `result`, and rows in `series_stats`. */
  returned: { series: number; rows: number };
  /** Rows the table could not hold. */
  rowsMissing: number;
  order: Order;
  /** The step of the returned curves, in seconds, when coarser than asked. */
  downsampledTo?: number | undefined;
  suggestions: readonly Suggestion[];
}

const ORDER_WORDS: Record<Order, string> = { unusual: "most unusual", highest: "highest", lowest: "lowest" };

/** The note of a cut query result: what was cut, the totals, and the next steps, in plain words. */
export function cutNote(facts: CutFacts): string {
  const what = facts.range ? "series" : "samples";
  const { series, points, bytes } = facts.total;
  const totals = facts.range
    ? `${formatCount(series)} series (${formatCount(points)} points, ${formatSize(bytes)})`
    : `${formatCount(series)} samples (${formatSize(bytes)})`;
  const why =
    facts.cutBy === "limit"
      ? `Cut to limit=${facts.limit}: Prometheus answered ${totals}.`
      : `Prometheus answered ${totals}, more than the ${budgetWords(facts.budget)}.`;
  const order = ORDER_WORDS[facts.order];
  const table =
    facts.rowsMissing === 0
      ? `series_stats has a row for every one of them`
      : `series_stats has rows for the ${formatCount(facts.returned.rows)} ${order} (${formatCount(facts.rowsMissing)} more did not fit)`;
  const shown =
    facts.returned.series >= series
      ? `result has all of them, the ${order} first`
      : `result has the ${formatCount(facts.returned.series)} ${order} ${what}`;
  const how = facts.range
    ? `${facts.downsampledTo !== undefined ? ` at a ${formatDuration(facts.downsampledTo)} step (each bucket keeps its lowest and highest sample)` : ""}; values have ${SIGNIFICANT_DIGITS} significant digits`
    : " as Prometheus sent them";
  const next = facts.suggestions.map((s) => (s.query === undefined ? s.text : `${s.text}: ${s.query}`));
  next.push(`order=${facts.order === "unusual" ? "highest or lowest" : "unusual"} ranks differently`);
  return `${why} ${table}; ${shown}${how}. To see more: ${next.join("; ")}.`;
}
