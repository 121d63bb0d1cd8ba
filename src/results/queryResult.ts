import { isPlainObject } from "../json.js";
import {
  type Fittable,
  type Fitted,
  formatCount,
  jsonBytes,
  prefixThatFits,
  type Truncation,
} from "./fit.js";
import { type Selected, Selection } from "./selection.js";
import { isThinnable, LARGEST_FIRST, pointsIn, thinned } from "./series.js";

/** What the note's suggestions are built from. */
export interface QueryHints {
  /** The PromQL expression asked. */
  query: string;
  /** A range query's step; undefined for an instant query. */
  step?: string | undefined;
}

export interface CollectOptions {
  /** The most bytes the result may take; elements beyond it are not kept while reading. */
  maxBytes: number;
  /** The caller's `limit`: the most series returned. */
  limit?: number | undefined;
}

/** Whatever fits under this is kept while reading, whatever the budget: a scalar or string result is never cut. */
const ALWAYS_KEPT_BYTES = 64 * 1024;
/** Room left in the budget for the `truncated` object. */
const TRUNCATION_RESERVE_BYTES = 400;
/** Queries longer than this are not repeated in suggestions. */
const QUOTABLE_QUERY_CHARS = 200;

export const SERIES_ORDER = "highest value first; a range's series ranked by its peak";

/** What an instant query that matched nothing tells the model to check (Prometheus looks back 5 minutes by default). */
export const EMPTY_INSTANT_HINT =
  "No series matched: check the metric name with ListMetrics and the label matchers; an instant query sees only series with a sample in the 5 minutes before its time, so for older data pass an earlier time or use ExecuteRangeQuery.";
/** What a range query that matched nothing tells the model to check. */
export const EMPTY_RANGE_HINT =
  "No series matched: check the metric name with ListMetrics and the label matchers, or widen the time range (an earlier start).";

/**
 * Receives a query answer's `data.result` elements as they stream in and keeps the best-ranked ones
 * that fit; `finish` gives the result, cut to a size on demand.
 */
export class QueryResultCollector {
  private readonly selection: Selection<unknown, number>;
  private points = 0;

  constructor(
    private readonly options: CollectOptions,
    private readonly hints: QueryHints,
  ) {
    // The limit is applied when fitting: it counts series, and a scalar's or string's pair is none.
    this.selection = new Selection(
      { maxBytes: Math.max(options.maxBytes, ALWAYS_KEPT_BYTES) },
      LARGEST_FIRST,
    );
  }

  element(value: unknown, bytes: number): void {
    this.points += pointsIn(value);
    this.selection.offer(value, bytes);
  }

  /** `data` is the answer's data with `result` emptied; `answerBytes` the size of the whole answer. */
  finish(data: unknown, answerBytes: number): QueryResult {
    return new QueryResult(data, this.selection.result(), this.points, answerBytes, this.options, this.hints);
  }
}

/** A query's result, whole or cut (see Fittable). `data` is Prometheus's `data` without its `result`. */
export class QueryResult implements Fittable {
  constructor(
    readonly data: unknown,
    private readonly selected: Selected<unknown>,
    private readonly totalPoints: number,
    private readonly answerBytes: number,
    private readonly options: CollectOptions,
    private readonly hints: QueryHints,
  ) {}

  fit(maxBytes: number): Fitted {
    const data = isPlainObject(this.data) ? this.data : {};
    const { kept, offered } = this.selected;
    const complete = kept.length === offered;
    if (complete && (data.resultType === "scalar" || data.resultType === "string")) {
      return { value: { ...data, result: kept.map((entry) => entry.value) } };
    }
    const room = maxBytes - jsonBytes(data);
    const limit = this.options.limit;
    const overLimit = limit !== undefined && offered > limit;
    if (complete && !overLimit && prefixThatFits(kept, room) === kept.length) {
      const value = { ...data, result: kept.map((entry) => entry.value) };
      if (offered > 0) return { value };
      const hint = this.hints.step === undefined ? EMPTY_INSTANT_HINT : EMPTY_RANGE_HINT;
      return jsonBytes(value) + Buffer.byteLength(hint, "utf8") <= maxBytes ? { value, hint } : { value };
    }
    // Kept elements come in Prometheus's order when none was dropped: a cut takes the best-ranked first.
    const best = complete ? byRank(kept) : kept;
    const roomWithNote = room - TRUNCATION_RESERVE_BYTES;
    const count = Math.min(prefixThatFits(best, roomWithNote), limit ?? Number.POSITIVE_INFINITY);
    const result = best.slice(0, count).map((entry) => entry.value);
    let thinning: Truncation["thinned"];
    const top = best[0]?.value ?? this.selected.firstDropped;
    if (result.length === 0 && isThinnable(top)) {
      const fitted = thinToFit(top, roomWithNote);
      if (fitted) {
        result.push(fitted.series);
        thinning = {
          every: fitted.every,
          points_before: pointsIn(top),
          points_after: pointsIn(fitted.series),
        };
      }
    }

    const value: Record<string, unknown> = { ...data, result };
    const truncated: Truncation = {
      cut_by: overLimit && result.length === limit && !thinning ? "limit" : "size",
      total: { series: offered, points: this.totalPoints, bytes: this.answerBytes },
      returned: { series: result.length, points: sumPoints(result), bytes: jsonBytes(value) },
      order: SERIES_ORDER,
      ...(thinning ? { thinned: thinning } : {}),
    };
    value.truncated = truncated;
    const candidates = best.map((entry) => entry.value);
    return { value, note: queryNote(truncated, maxBytes, candidates, this.hints, limit) };
  }
}

function byRank<T extends { value: unknown }>(entries: readonly T[]): T[] {
  const keyed = entries.map((entry) => ({ entry, key: LARGEST_FIRST.keyOf(entry.value) }));
  // Array.prototype.sort is stable: equal ranks keep Prometheus's order.
  keyed.sort((a, b) => LARGEST_FIRST.compare(a.key, b.key));
  return keyed.map(({ entry }) => entry);
}

function sumPoints(elements: readonly unknown[]): number {
  let points = 0;
  for (const element of elements) points += pointsIn(element);
  return points;
}

/** The series with every n-th point, n as small as fits `room` bytes; undefined if not even its labels fit. */
function thinToFit(
  series: Record<string, unknown>,
  room: number,
): { series: Record<string, unknown>; every: number } | undefined {
  const points = pointsIn(series);
  const whole = jsonBytes(series);
  let every = Math.max(2, Math.ceil(whole / Math.max(room, 1)));
  while (every <= points) {
    const candidate = thinned(series, every);
    const bytes = jsonBytes(candidate);
    if (bytes <= room) return { series: candidate, every };
    every = Math.max(every + 1, Math.ceil((every * bytes) / Math.max(room, 1)));
  }
  const single = thinned(series, points + 1);
  return jsonBytes(single) <= room ? { series: single, every: points + 1 } : undefined;
}

function queryNote(
  truncated: Truncation,
  maxBytes: number,
  candidates: readonly unknown[],
  hints: QueryHints,
  limit: number | undefined,
): string {
  const { total, returned: sent } = truncated;
  const counts =
    `${formatCount(total.series ?? 0)} series, ${formatCount(sent.series ?? 0)} returned, the highest values first` +
    `${hints.step !== undefined ? " (each series ranked by its peak)" : ""}; ` +
    `${formatCount(total.points ?? 0)} points, ${formatCount(sent.points ?? 0)} returned.`;
  const why =
    truncated.cut_by === "limit"
      ? `Cut to limit=${limit}: ${counts}`
      : `Cut to fit the result size limit of ${formatCount(maxBytes)} bytes (Prometheus answered ${formatCount(total.bytes ?? 0)} bytes): ${counts}`;
  const thinnedText = truncated.thinned
    ? ` The series returned had ${formatCount(truncated.thinned.points_before)} points, more than fit: one point in every ${truncated.thinned.every} was kept (${formatCount(truncated.thinned.points_after)}), so spikes between them may be missing; max_over_time(...) over a larger step keeps the peaks.`
    : "";
  return `${why}${thinnedText} ${nextSteps(truncated, candidates, hints, limit)}`;
}

function nextSteps(
  truncated: Truncation,
  candidates: readonly unknown[],
  hints: QueryHints,
  limit: number | undefined,
): string {
  const query = hints.query.length <= QUOTABLE_QUERY_CHARS ? hints.query : "<query>";
  const label = groupingLabel(candidates) ?? "<label>";
  const steps = [
    `aggregate, e.g. sum by (${label}) (${query})`,
    `keep the largest series with topk(10, ${query})`,
    "narrow the label matchers",
  ];
  if (hints.step !== undefined) steps.push(`use a larger step than ${hints.step} or a shorter range`);
  steps.push(
    truncated.cut_by === "limit"
      ? `raise limit (now ${limit}; the size limit still applies)`
      : "pass limit (a number of series) to choose how many to return",
  );
  return `To see more: ${steps.join("; ")}.`;
}

/** The label with the fewest distinct values (at least two) among the best series: a natural `sum by`. */
function groupingLabel(series: readonly unknown[]): string | undefined {
  const distinct = new Map<string, Set<unknown>>();
  for (const element of series) {
    const metric = isPlainObject(element) ? element.metric : undefined;
    if (!isPlainObject(metric)) continue;
    for (const [name, value] of Object.entries(metric)) {
      if (name === "__name__") continue;
      const values = distinct.get(name) ?? new Set();
      values.add(value);
      distinct.set(name, values);
    }
  }
  let best: string | undefined;
  let fewest = Number.POSITIVE_INFINITY;
  for (const [name, values] of distinct) {
    if (values.size >= 2 && values.size < fewest) {
      best = name;
      fewest = values.size;
    }
  }
  return best ?? distinct.keys().next().value;
}
