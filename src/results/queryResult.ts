import type { Progress } from "../progress.js";
import { isPlainObject, parseJsonBytes } from "../util/json.js";
import { formatSize } from "../util/text.js";
import { compactElement, rangeHeader, withRangeHeader } from "./compactCurve.js";
import { describeCut } from "./cut.js";
import { type Described, Description, type Descriptions } from "./description.js";
import {
  addCost,
  type Budget,
  budgetWords,
  type Cost,
  costOfText,
  type Fittable,
  type Fitted,
  fitsIn,
  formatCount,
  type Layout,
  less,
  Measure,
  type Truncation,
} from "./fit.js";
import type { QueryAsked } from "./queryAsked.js";
import { ranked } from "./ranking.js";
import { pointsIn } from "./series.js";
import { type StatsTable, statsTable } from "./statsTable.js";
import { TokenTally } from "./tokens.js";

// QueryAsked stays importable from here, where the code that uses it has always found it.
export type { QueryAsked } from "./queryAsked.js";

/** What an instant query that matched nothing tells the model to check (Prometheus looks back 5 minutes by default). */
export const EMPTY_INSTANT_HINT =
  "No series matched: check the metric name with ListMetrics and the label matchers; an instant query sees only series with a sample in the 5 minutes before its time, so for older data pass an earlier time or use ExecuteRangeQuery.";
/** What a range query that matched nothing tells the model to check. */
export const EMPTY_RANGE_HINT =
  "No series matched: check the metric name with ListMetrics and the label matchers, or widen the time range (an earlier start).";

/** Elements of a scalar or string result (a number, a string) are always kept, up to this many bytes. */
const ALWAYS_KEPT_BYTES = 64 * 1024;

/**
 * Receives a query answer's `data.result` elements as they stream in. While the whole answer may still
 * fit the budget it keeps them as they are; from the first one that cannot, it describes every series
 * instead (statistics and a curve at a coarser step, see Description) and keeps no points.
 */
export class QueryResultCollector {
  private whole: WholeAnswer | undefined;
  private readonly description: Description;
  private readonly odd: Array<{ value: unknown; bytes: number }> = [];
  private oddBytes = 0;
  private offered = 0;
  private points = 0;

  constructor(
    private readonly budget: Budget,
    private readonly asked: QueryAsked,
  ) {
    this.description = new Description(asked, budget);
    // A summary is the table alone: every element is described, none kept.
    this.whole = asked.summary ? undefined : new WholeAnswer(asked);
  }

  element(raw: Uint8Array): void {
    this.offered++;
    if (this.whole !== undefined) {
      const value = parseJsonBytes(raw);
      this.points += pointsIn(value);
      if (this.whole.add(value, raw, this.budget)) return;
      for (const held of this.whole.values) this.describe(held);
      this.whole = undefined;
      this.describe(value, raw.length);
      return;
    }
    // The answer is cut: most of its elements are read only for their statistics, straight from bytes.
    const points = this.description.addBytes(raw);
    if (points !== undefined) {
      this.points += points;
      return;
    }
    const value = parseJsonBytes(raw);
    this.points += pointsIn(value);
    this.describe(value, raw.length);
  }

  /** `data` is the answer's data with `result` emptied; `answerBytes` the size of the whole answer. */
  finish(data: unknown, answerBytes: number): QueryResult {
    const total = { series: this.offered, points: this.points, bytes: answerBytes };
    return new QueryResult(
      isPlainObject(data) ? data : {},
      this.whole,
      this.description,
      this.odd,
      total,
      this.asked,
    );
  }

  /** A scalar's or string's pair, or an element no Prometheus sends, is carried as it is if small. */
  private describe(value: unknown, bytes?: number): void {
    if (this.description.add(value)) return;
    const size = bytes ?? Buffer.byteLength(JSON.stringify(value) ?? "");
    if (this.oddBytes + size > Math.max(ALWAYS_KEPT_BYTES, this.budget.bytes)) return;
    this.odd.push({ value, bytes: size });
    this.oddBytes += size;
  }
}

/**
 * The elements of an answer that may be returned whole, and what they cost as the answer writes them:
 * Prometheus's bytes in the `exact` and `legacy` forms, the compact elements' text in the `compact` form
 * (see compactCurve.ts), so that what fits is what will be written.
 */
class WholeAnswer {
  /** The elements as Prometheus sent them (described if the answer is cut after all). */
  readonly values: unknown[] = [];
  /** The elements as the answer writes them. */
  readonly written: unknown[] = [];
  private bytes = 0;
  /** The elements written one after another, once their bytes no longer fit the token budget. */
  private tally: TokenTally | undefined;
  /** Raw elements not yet tallied: while their bytes alone fit the token budget, they need not be. */
  private untallied: Uint8Array[] = [];

  constructor(private readonly asked: QueryAsked) {}

  /** Keeps the element while the answer may still fit the budget; false (keeping nothing) once it cannot. */
  add(value: unknown, sent: Uint8Array, budget: Budget): boolean {
    const written = compactElement(value, this.asked);
    const raw = written === value ? sent : Buffer.from(JSON.stringify(written));
    // Each element is followed by a comma.
    const bytes = this.bytes + raw.length + 1;
    if (bytes > budget.bytes) return false;
    // A token is at least a byte: bytes that fit the token budget need no estimate.
    if (this.tally === undefined && bytes > budget.tokens) {
      this.tally = new TokenTally();
      for (const earlier of this.untallied) this.tally.bytes(earlier).text(",");
      this.untallied = [];
    }
    if (this.tally !== undefined) {
      if (this.tally.bytes(raw).text(",").tokens > budget.tokens) return false;
    } else {
      // The scanner's bytes are valid during its call only.
      this.untallied.push(raw.slice());
    }
    this.bytes = bytes;
    this.values.push(value);
    this.written.push(written);
    return true;
  }

  /** What the elements cost as written (their bytes standing in while those fit the tokens). */
  get cost(): Cost {
    return { tokens: this.tally?.tokens ?? this.bytes, bytes: this.bytes };
  }
}

/** A summary cut to the budget: how many series there were, how many have a row. */
function summaryTruncation(series: number, rows: number, order: string): Truncation {
  return {
    note: `The table is cut to the budget: ${formatCount(rows)} of ${formatCount(series)} series have a row, the first in order ${order}; narrow the query for the rest.`,
    cut_by: "size",
    total: { series },
    returned: { rows },
    order,
    rows_missing: series - rows,
  };
}

/** A query's result, whole or cut (see Fittable). `data` is Prometheus's `data` without its `result`. */
export class QueryResult implements Fittable {
  constructor(
    private readonly data: Record<string, unknown>,
    private readonly whole: WholeAnswer | undefined,
    private readonly description: Description,
    private readonly odd: ReadonlyArray<{ value: unknown; bytes: number }>,
    private readonly total: { series: number; points: number; bytes: number },
    private readonly asked: QueryAsked,
  ) {}

  /** The whole answer's elements have been described too (once, on the first cut). */
  private wholeDescribed = false;
  /** The caller has been told that cutting began (once, however many times it is fitted). */
  private cutTold = false;

  /** Prometheus's `data` as received, without its elements: what the tool checks the shape of. */
  get shape(): Record<string, unknown> {
    return { ...this.data, result: [] };
  }

  async fit(budget: Budget, layout: Layout, progress?: Progress): Promise<Fitted> {
    const { resultType } = this.data;
    const odd = this.odd.map((entry) => entry.value);
    // A scalar's or string's pair is a handful of bytes: never cut.
    if (resultType === "scalar" || resultType === "string") {
      return { value: { ...this.data, result: [...(this.whole?.written ?? []), ...odd] } };
    }
    if (this.asked.summary) return { value: this.summaryOf(budget, layout) };
    const whole = this.whole;
    if (whole !== undefined && odd.length === 0) {
      // An empty answer has no values to read the range header against: Prometheus's keys alone.
      const data = whole.written.length > 0 ? withRangeHeader(this.data, this.asked) : this.data;
      const value = { ...data, result: whole.written };
      const limit = this.asked.limit;
      if (
        (limit === undefined || whole.values.length <= limit) &&
        this.fitsWhole(value, whole, budget, layout)
      ) {
        if (this.asked.form !== "legacy" && whole.values.length > 1) {
          const withTable = this.wholeWithTable(value, whole, budget, layout);
          if (withTable !== undefined) return { value: withTable };
        } else if (value.result.length > 0) return { value };
        else {
          const hint =
            (await this.asked.emptyHint?.()) ??
            (this.asked.range === undefined ? EMPTY_INSTANT_HINT : EMPTY_RANGE_HINT);
          // The hint is given only where it fits beside the (empty) answer.
          const withHint = addCost(costOfText(new Measure(layout).whole(value)), costOfText(hint));
          return fitsIn(withHint, budget) ? { value, hint } : { value };
        }
      }
    }
    if (!this.cutTold) {
      this.cutTold = true;
      progress?.step(this.cutStep(budget));
    }
    const value = await describeCut({
      data: this.data,
      described: this.described(),
      odd: this.odd,
      total: this.total,
      asked: this.asked,
      budget,
      layout,
    });
    return { value };
  }

  /** Every series (or sample) described, the whole answer's too (described once, however often fitted). */
  private described(): Descriptions {
    if (this.whole !== undefined && !this.wholeDescribed) {
      for (const held of this.whole.values) this.description.add(held);
      this.wholeDescribed = true;
    }
    return this.description.result(this.data.resultType === "vector" ? "sample" : "series");
  }

  /** The ranked series' `series_stats` table, in the answer's form. */
  private table(measure: Measure): StatsTable {
    const { items } = this.described();
    const order = ranked(
      items.map((item) => item.features),
      this.asked.order,
    ).map((index) => items[index] as Described);
    return statsTable(order, this.data.resultType !== "vector", this.asked.form, measure);
  }

  /** The whole answer with its `series_stats` table, when both fit the budget together. */
  private wholeWithTable(
    answer: Record<string, unknown>,
    whole: WholeAnswer,
    budget: Budget,
    layout: Layout,
  ): Record<string, unknown> | undefined {
    const measure = new Measure(layout);
    const { heading, rows } = this.table(measure);
    const value = { ...answer, series_stats: { ...heading, rows: rows.first(rows.count) } };
    const fits = layout.indent
      ? fitsIn(measure.of(value), budget)
      : fitsIn(
          addCost(
            addCost(measure.of({ ...answer, result: [], series_stats: heading }), whole.cost),
            rows.cost(rows.count),
          ),
          budget,
        );
    return fits ? value : undefined;
  }

  /**
   * `summary: true`: the table alone (with the range it covers), its rows cut to the budget, in the
   * asked order, where the table itself does not fit.
   */
  private summaryOf(budget: Budget, layout: Layout): Record<string, unknown> {
    const measure = new Measure(layout);
    const { heading, rows } = this.table(measure);
    const range = this.asked.range;
    const head = {
      resultType: this.data.resultType,
      ...(range === undefined ? {} : { range: rangeHeader(range) }),
    };
    const total = this.description.result(this.data.resultType === "vector" ? "sample" : "series");
    const series = total.items.length + total.dropped;
    const draft = summaryTruncation(series, series, this.asked.order);
    const room = less(budget, measure.of({ truncated: draft, ...head, series_stats: heading }));
    const whole = fitsIn(rows.cost(rows.count), less(budget, measure.of({ ...head, series_stats: heading })));
    const kept = whole ? rows.count : rows.fitting(room);
    const table = { ...head, series_stats: { ...heading, rows: rows.first(kept) } };
    const covered = rows.series(kept);
    return covered === series && whole
      ? table
      : { truncated: summaryTruncation(series, covered, this.asked.order), ...table };
  }

  /** What the caller is told as cutting begins: how much came back, and what the cut keeps. */
  private cutStep(budget: Budget): string {
    const { series, bytes } = this.total;
    const what = this.asked.range === undefined ? "samples" : "series";
    return `Cutting the answer to the ${budgetWords(budget)}: ${formatCount(series)} ${what} (${formatSize(bytes)}) came back; keeping statistics for every one and the most unusual`;
  }

  private fitsWhole(
    value: Record<string, unknown>,
    whole: WholeAnswer,
    budget: Budget,
    layout: Layout,
  ): boolean {
    const measure = new Measure(layout);
    // Indented, the whole text is measured: the elements' costs were taken as Prometheus wrote them, compact.
    if (layout.indent) return fitsIn(measure.of(value), budget);
    const skeleton = measure.of({ ...value, result: [] });
    return fitsIn(addCost(skeleton, whole.cost), budget);
  }
}
