import { isCutValue } from "../monitoredText.js";
import { advise } from "../promql/advice.js";
import type { AdviceFacts } from "../promql/adviceContext.js";
import { compactCurve, pointsOfValues, roundedSample, withRangeHeader } from "./compactCurve.js";
import type { CurveSpace } from "./curves.js";
import type { Described, DescribedSeries, Descriptions } from "./description.js";
import {
  addCost,
  type Budget,
  type Cost,
  fitsIn,
  type Layout,
  less,
  Measure,
  NO_COST,
  type Sequence,
  type Truncation,
} from "./fit.js";
import { SIGNIFICANT_DIGITS, sampleText } from "./numbers.js";
import type { QueryAsked } from "./queryAsked.js";
import { cutNote } from "./queryNote.js";
import { ranked } from "./ranking.js";
import { type StatsTable, statsTable } from "./statsTable.js";
import type { Rows } from "./table.js";

/** At least this many curves (or samples) are returned, where the budget allows. */
const MIN_CURVES = 10;
/** …each with at least this many points over the asked range (or every point a shorter series has). */
const MIN_CURVE_POINTS = 48;
/** How many factors, from the finest that fits, are tried for the fullest use of the room. */
const FACTORS_TRIED = 4;
/** When the table does not fit whole, the curves take at most this share of the room. */
const CURVES_SHARE_WHEN_TABLE_CUT = 2 / 3;
/** A suggested step's cost is reckoned from this many series' labels. */
const LABELS_SAMPLED = 200;
/** A step suggested as one that fits must fit with this much to spare (the estimate is of points to come). */
const STEP_SAFETY = 1.1;
/** A step whose duration is written as long as any (1d2h3m4s): the draft note's. */
const LONGEST_DURATION = 93_784;
/** Steps a person would choose, in seconds; a suggested step is one of these when it can be. */
const ROUND_STEPS = [
  30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
];

export interface CutInput {
  /** Prometheus's `data` without its result. */
  data: Record<string, unknown>;
  described: Descriptions;
  /** Elements that are neither samples nor series, carried as they are where room is left. */
  odd: ReadonlyArray<{ value: unknown; bytes: number }>;
  total: { series: number; points: number; bytes: number };
  asked: QueryAsked;
  budget: Budget;
  layout: Layout;
}

/**
 * A query result cut to the budget, as an object whose first key is `truncated` (with its note):
 * `result` in Prometheus's shape with the first series in the asked order (a range's curves at a
 * coarser step where needed, see CurveSpace), and `series_stats`, a row for every series while the
 * budget allows, in the same order.
 *
 * How the room is shared: the table and at least MIN_CURVES curves of at least MIN_CURVE_POINTS
 * points come first; if both fit, the curves take the rest at the finest step at which MIN_CURVES of
 * them fit, and more series join at that step while they fit. If not, the curves keep their
 * MIN_CURVE_POINTS (as many of the MIN_CURVES as fit two thirds of the room), and the table takes the
 * rest, in the asked order.
 */
export async function describeCut(input: CutInput): Promise<Record<string, unknown>> {
  const { data, described, asked, budget, layout } = input;
  const measure = new Measure(layout);
  const items = described.items;
  const order = ranked(
    items.map((item) => item.features),
    asked.order,
  ).map((index) => items[index] as Described);
  const isRange = data.resultType !== "vector";
  const { heading: table, rows } = statsTable(order, isRange, asked.form, measure);
  const space = described.space;
  const form = curveForm(asked);
  const curves = new Curves(order, space, measure, form, asked.limit);

  const suggestions = await advise(adviceFacts(input, order, table));
  const total = input.total;
  const tableTotal = items.length + described.dropped;
  const facts = (
    returned: { series: number; rows: number },
    rowsMissing: number,
    downsampledTo?: number,
  ) => ({
    // The caller's limit cut it when it is what kept more series out, and the table is whole.
    cutBy:
      asked.limit !== undefined &&
      returned.series === asked.limit &&
      asked.limit < items.length &&
      rowsMissing === 0
        ? ("limit" as const)
        : ("size" as const),
    limit: asked.limit,
    budget,
    range: isRange,
    total,
    returned,
    rowsMissing,
    order: asked.order,
    downsampledTo,
    suggestions,
  });
  // The note is reserved at its longest: every count as large as it can be, every clause present.
  const most = { series: total.series, rows: total.series };
  const draft = truncation(
    facts(most, Math.max(1, tableTotal), LONGEST_DURATION),
    { ...most, points: total.points },
    asked.range?.step,
  );
  const room = less(budget, measure.of(skeletonOf(draft, input, table)));

  const plan = share(room, rows, curves);
  const result: unknown[] = [];
  for (let index = 0; index < plan.curves; index++) result.push(curves.element(index, plan.factor));
  const left = less(room, plan.cost);
  const odd = measure.sequence(2);
  for (const { value, bytes } of input.odd) {
    if (bytes > left.bytes || !fitsIn(odd.add(value), left)) break;
    result.push(value);
  }
  const points = result.reduce<number>((sum, element) => sum + pointsOf(element, form.compact), 0);
  const width = space === undefined ? undefined : space.width * plan.factor;
  const downsampledTo =
    isRange && width !== undefined && width > (asked.range?.step ?? 0) ? width : undefined;
  const returned = { series: result.length, rows: rows.series(plan.rows) };
  const truncated = truncation(
    facts(returned, tableTotal - rows.series(plan.rows), downsampledTo),
    { ...returned, points },
    asked.range?.step,
  );
  return {
    truncated,
    ...withRangeHeader(data, asked, width ?? asked.range?.step),
    result,
    series_stats: { ...table, rows: rows.first(plan.rows) },
  };
}

/** How curves and samples are written (see compactCurve.ts and the Curves class). */
interface CurveForm {
  /** A range's curves as compact arrays on its grid, not as Prometheus's pairs. */
  compact: boolean;
  /** Samples' values rounded, not as Prometheus sent them. */
  rounded: boolean;
}

function curveForm(asked: QueryAsked): CurveForm {
  return {
    compact: asked.form === "compact" && asked.range !== undefined,
    rounded: asked.form === "compact",
  };
}

/** The cut answer without its elements, the note and the range header at their longest: what the room is left of. */
function skeletonOf(
  draft: Truncation,
  input: CutInput,
  table: StatsTable["heading"],
): Record<string, unknown> {
  return {
    truncated: draft,
    ...withRangeHeader(input.data, input.asked, LONGEST_DURATION),
    result: [],
    series_stats: { ...table, rows: [] },
  };
}

function truncation(
  facts: Parameters<typeof cutNote>[0],
  returned: { series: number; points: number; rows: number },
  askedStep: number | undefined,
): Truncation {
  return {
    note: cutNote(facts),
    cut_by: facts.cutBy,
    total: facts.total,
    returned,
    order: facts.order,
    ...(facts.rowsMissing > 0 ? { rows_missing: facts.rowsMissing } : {}),
    ...(facts.downsampledTo !== undefined
      ? {
          downsampled: {
            asked_step_seconds: askedStep ?? null,
            returned_step_seconds: facts.downsampledTo,
            method: "min_max",
          },
        }
      : {}),
    ...(facts.range ? { significant_digits: SIGNIFICANT_DIGITS } : {}),
  };
}

/** What goes in: how many curves, at which factor of the space's width, and how many table rows. */
interface Plan {
  curves: number;
  factor: number;
  rows: number;
  cost: Cost;
}

function share(room: Budget, rows: Rows, curves: Curves): Plan {
  const wanted = Math.min(MIN_CURVES, curves.count);
  const coarsest = curves.coarsestWith(MIN_CURVE_POINTS, wanted);
  const fewest = curves.cost(wanted, coarsest);
  if (rows.fitting(less(room, fewest)) === rows.count) {
    const tableCost = rows.cost(rows.count);
    const curvesRoom = less(room, tableCost);
    const finest = curves.finestFitting(wanted, curvesRoom) ?? coarsest;
    const { count, factor } = curves.fullest(finest, curvesRoom, wanted);
    return { curves: count, factor, rows: rows.count, cost: addCost(tableCost, curves.cost(count, factor)) };
  }
  // The table will be cut: the curves keep their 48 points, no more, within their share of the room.
  const curvesRoom = scaled(room, CURVES_SHARE_WHEN_TABLE_CUT);
  let count = wanted;
  while (count > 0 && !fitsIn(curves.cost(count, coarsest), curvesRoom)) count--;
  let factor = coarsest;
  if (count === 0 && wanted > 0) {
    // Not even one curve with that many points: the first at whatever step fits, rather than none.
    const coarser = curves.finestFitting(1, curvesRoom);
    if (coarser !== undefined) {
      count = 1;
      factor = coarser;
    }
  }
  const curvesCost = curves.cost(count, factor);
  const kept = rows.fitting(less(room, curvesCost));
  const rowsCost = rows.cost(kept);
  if (kept < rows.count) return { curves: count, factor, rows: kept, cost: addCost(rowsCost, curvesCost) };
  // The table fit after all: more curves in what is left.
  const more = curves.countFitting(factor, less(room, rowsCost), count);
  return { curves: more, factor, rows: kept, cost: addCost(rowsCost, curves.cost(more, factor)) };
}

function scaled(budget: Budget, share: number): Budget {
  return { tokens: Math.floor(budget.tokens * share), bytes: Math.floor(budget.bytes * share) };
}

/**
 * The ranked series' curves (or samples) as `result` elements, and what they cost at each factor of
 * the space's width; each is written and measured once.
 */
class Curves {
  /** Per factor, the running totals of writing the ranked curves at it, as far as asked. */
  private readonly totals = new Map<number, { sequence: Sequence; totals: Cost[] }>();
  /** Factors of the space's width that give different numbers of buckets, finest first. */
  readonly factors: number[];

  constructor(
    private readonly order: readonly Described[],
    space: CurveSpace | undefined,
    private readonly measure: Measure,
    private readonly form: CurveForm,
    /** The caller's `limit`: never more curves than this. */
    private readonly limit = Number.POSITIVE_INFINITY,
  ) {
    this.factors = [];
    const buckets = space?.buckets ?? 1;
    let previous = Number.POSITIVE_INFINITY;
    for (let factor = 1; factor <= buckets; factor++) {
      const count = Math.ceil(buckets / factor);
      if (count < previous) this.factors.push(factor);
      previous = count;
    }
  }

  /** How many curves there may be: every series, or the caller's limit. */
  get count(): number {
    return Math.min(this.order.length, this.limit);
  }

  /**
   * The coarsest factor at which each of the first `count` curves keeps at least `points` points (or
   * every point it has at the space's width, if fewer).
   */
  coarsestWith(points: number, count: number): number {
    const keeps = (factor: number) => {
      for (let index = 0; index < count; index++) {
        const item = this.order[index];
        if (item?.kind !== "series") continue;
        if (this.pointsAt(item, factor) < Math.min(points, this.pointsAt(item, 1))) return false;
      }
      return true;
    };
    // Points fall as the factor grows: binary search for the last factor that keeps enough.
    let low = 0;
    let high = this.factors.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (keeps(this.factors[middle] as number)) low = middle;
      else high = middle - 1;
    }
    return this.factors[low] ?? 1;
  }

  private pointsAt(item: DescribedSeries, factor: number): number {
    return (item.values?.points(factor).length ?? 0) + (item.histograms?.points(factor).length ?? 0);
  }

  element(index: number, factor: number): unknown {
    const item = this.order[index] as Described;
    if (item.kind === "series") return curveElement(item, factor, this.form.compact);
    return this.form.rounded ? roundedSample(item.element) : item.element;
  }

  /** The first `count` curves at `factor`, written one after another. */
  cost(count: number, factor: number): Cost {
    if (count === 0) return NO_COST;
    // Samples are written as they are: their cost does not depend on the factor.
    const key = this.order[0]?.kind === "sample" ? 1 : factor;
    let written = this.totals.get(key);
    if (written === undefined) {
      written = { sequence: this.measure.sequence(2), totals: [] };
      this.totals.set(key, written);
    }
    while (written.totals.length < count) {
      written.totals.push(written.sequence.add(this.element(written.totals.length, factor)));
    }
    return written.totals[count - 1] as Cost;
  }

  /** The finest factor (up to `coarsest`) at which the first `count` curves fit `room`. */
  finestFitting(count: number, room: Budget, coarsest = Number.POSITIVE_INFINITY): number | undefined {
    // The cost falls as the factor grows (fewer buckets): binary search for the first that fits.
    const factors = this.factors.filter((factor) => factor <= coarsest);
    let low = 0;
    let high = factors.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (fitsIn(this.cost(count, factors[middle] as number), room)) high = middle;
      else low = middle + 1;
    }
    return factors[low];
  }

  /**
   * Of `finest` and the next few coarser factors, the one whose curves fill `room` the most (more
   * series at a slightly coarser step can use what one more at the finer step would not fit in).
   */
  fullest(finest: number, room: Budget, atLeast: number): { count: number; factor: number } {
    let best = { count: atLeast, factor: finest, tokens: -1 };
    for (const factor of this.factors.filter((f) => f >= finest).slice(0, FACTORS_TRIED)) {
      const count = this.countFitting(factor, room, atLeast);
      const { tokens } = this.cost(count, factor);
      if (tokens > best.tokens) best = { count, factor, tokens };
    }
    return best;
  }

  /** How many of the first curves fit `room` at `factor`, at least `atLeast` (already known to fit). */
  countFitting(factor: number, room: Budget, atLeast: number): number {
    let count = atLeast;
    while (count < this.count && fitsIn(this.cost(count + 1, factor), room)) count++;
    return count;
  }
}

/**
 * A series with its curves at `factor`, values rounded: `values` compact (one entry per bucket) or in
 * Prometheus's shape (a pair per point).
 */
function curveElement(item: DescribedSeries, factor: number, compact: boolean): Record<string, unknown> {
  const element: Record<string, unknown> = { metric: item.metric };
  if (!item.values && !item.histograms) element.values = [];
  if (item.values && compact) element.values = compactCurve(item.values, factor);
  else if (item.values)
    element.values = item.values.points(factor).map(([time, value]) => [time, sampleText(value)]);
  if (item.histograms) {
    element.histograms = item.histograms.points(factor).map(([time, , histogram]) => [time, histogram]);
  }
  return element;
}

function pointsOf(element: unknown, compact: boolean): number {
  const { values, histograms } = element as { values?: unknown[]; histograms?: unknown[] };
  if (values === undefined && histograms === undefined) return 1;
  return pointsOfValues(values ?? [], compact) + (histograms?.length ?? 0);
}

/** What the advice is built from: the query, the answer's labels, and a step at which it would fit. */
function adviceFacts(
  input: CutInput,
  order: readonly Described[],
  table: { common_labels: Record<string, unknown> },
): AdviceFacts {
  const { asked, budget } = input;
  const distinct = new Map<string, Set<unknown>>();
  for (const item of order) {
    const metric = item.metric as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(metric ?? {})) {
      if (name === "__name__" || Object.hasOwn(table.common_labels, name)) continue;
      const values = distinct.get(name) ?? new Set();
      values.add(value);
      distinct.set(name, values);
    }
  }
  const varyingLabels = [...distinct]
    .filter(([, values]) => values.size >= 2)
    .map(([name, values]) => ({ name, distinct: values.size }))
    .sort((a, b) => a.distinct - b.distinct);
  const first = order[0]?.metric as Record<string, unknown> | undefined;
  // A cut value is not the label's value: a selector with it would match nothing.
  const focusLabel = varyingLabels.find(({ name, distinct }) => {
    const value = first?.[name];
    return distinct < order.length && typeof value === "string" && !isCutValue(value);
  });
  const range = asked.range;
  return {
    query: asked.query,
    range: range && { stepSeconds: range.step, rangeSeconds: range.end - range.start },
    seriesTotal: input.total.series,
    varyingLabels,
    fittingStepSeconds: range && fittingStep(order, range, budget),
    order: asked.order,
    focus: focusLabel && { name: focusLabel.name, value: first?.[focusLabel.name] as string },
  };
}

/**
 * The smallest round step, a whole multiple of the asked one, at which Prometheus's whole answer
 * would fit the budget: each series keeps its share of points, each point costs what the answer's
 * points cost written in full precision.
 */
function fittingStep(
  order: readonly Described[],
  range: { start: number; end: number; step: number },
  budget: Budget,
): number | undefined {
  const series = order.filter((item): item is DescribedSeries => item.kind === "series");
  if (series.length === 0) return undefined;
  const measure = new Measure({});
  // The labels of the first series stand in for the rest's.
  const sampled = series.slice(0, LABELS_SAMPLED);
  const sampledLabels = measure.totals(
    sampled.map((item) => ({ metric: item.metric, values: [] })),
    2,
  )[sampled.length - 1] as Cost;
  const labels = {
    tokens: (sampledLabels.tokens * series.length) / sampled.length,
    bytes: (sampledLabels.bytes * series.length) / sampled.length,
  };
  const sample = series.slice(0, 20).flatMap((item) => item.values?.points(1) ?? []);
  if (sample.length === 0) return undefined;
  const perPoint = measure.of(sample.map(([time, value]) => [time, String(value)]));
  const span = range.end - range.start;
  const round = ROUND_STEPS.filter((step) => step > range.step && isMultiple(step, range.step));
  // A step that leaves a series fewer points than a cut curve keeps is no better than the cut.
  const candidates = (
    round.length > 0 ? round : [2, 3, 4, 5, 6, 10, 20, 50, 100].map((k) => k * range.step)
  ).filter((step) => step <= span / MIN_CURVE_POINTS);
  for (const step of candidates) {
    let points = 0;
    for (const item of series)
      points += Math.min(item.stats.samples, Math.ceil((item.stats.samples * range.step) / step));
    const cost = {
      tokens: (labels.tokens + (perPoint.tokens * points) / sample.length) * STEP_SAFETY,
      bytes: (labels.bytes + (perPoint.bytes * points) / sample.length) * STEP_SAFETY,
    };
    if (fitsIn(cost, budget)) return step;
  }
  return undefined;
}

function isMultiple(step: number, of: number): boolean {
  const times = step / of;
  return Math.abs(times - Math.round(times)) < 1e-9;
}
