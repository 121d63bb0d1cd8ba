/**
 * What to ask instead when an answer had to be cut to fit the model's token budget.
 *
 * Advice is built from the parsed query rather than its text, because a rewrite that looks right as text is
 * often wrong as PromQL: summing quantiles or ratios, re-wrapping an aggregation in itself, asking for
 * `topk(10, …)` of ten series. Every rewrite keeps the caller's sub-expressions verbatim (sliced from the
 * source by node positions) so `offset`, `@`, subqueries, comments and spacing survive, and every rewrite is
 * parsed again before it is offered.
 */

import {
  ARITHMETIC,
  aggregationOp,
  args,
  type Binary,
  binary,
  byLabels,
  COMPARISON,
  child,
  children,
  firstExpr,
  functionName,
  isFilter,
  labelNameOf,
  labelToken,
  loadPromql,
  parseClean,
  SET_OPERATORS,
  type SyntaxNode,
  splice,
  TRANSPARENT_NODES,
  text,
  unparen,
  valueType,
} from "./syntax.js";

/** What the cut answer looked like; everything here is known after the cut without re-querying. */
export interface AdviceFacts {
  /** The caller's PromQL, exactly as asked. */
  query: string;
  /** A range query's step and length in seconds; undefined for an instant query. */
  range?: { stepSeconds: number; rangeSeconds: number } | undefined;
  /** How many series (range) or samples (instant) Prometheus answered. */
  seriesTotal: number;
  /** Labels whose values differ between the answer's series (never `__name__`), each with its number of distinct values, fewest first. */
  varyingLabels: ReadonlyArray<{ name: string; distinct: number }>;
  /** Range queries: the smallest step in seconds (a whole multiple of the asked step) at which the whole answer would fit the budget; undefined when no step would (too many series for any step). */
  fittingStepSeconds?: number | undefined;
  /** How the cut ordered the series: most unusual first, highest first, or lowest first. */
  order: "unusual" | "highest" | "lowest";
  /** A label value the most unusual (or highest/lowest) series share, worth narrowing the matchers to. */
  focus?: { name: string; value: string } | undefined;
}

/** One thing to ask instead: `text` is short plain words for the model, `query` (when set) a valid PromQL expression it can run as is. */
export interface Suggestion {
  kind: "aggregate" | "topk" | "bottomk" | "filter" | "step" | "narrow";
  text: string;
  query?: string;
}

const MAX_SUGGESTIONS = 4;
const TOP_K = 10;

/**
 * Suggestions for a cut answer, built from the parsed query; an empty list when nothing useful and valid
 * can be said. Never throws: when the parser cannot be loaded or the query does not parse, only the advice
 * that needs no parsing (a larger step) is given.
 *
 * @example
 * ```ts
 * await advise({
 *   query: "histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m]))",
 *   seriesTotal: 120,
 *   varyingLabels: [{ name: "namespace", distinct: 3 }, { name: "pod", distinct: 120 }],
 *   order: "highest",
 * });
 * // [
 * //   { kind: "aggregate", text: "compute the quantile from summed buckets per namespace: at most 3 series instead of 120",
 * //     query: "histogram_quantile(0.99, sum by (le, namespace) (rate(http_request_duration_seconds_bucket[5m])))" },
 * //   { kind: "topk", text: "keep only the 10 highest series",
 * //     query: "topk(10, histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m])))" },
 * // ]
 * ```
 */
export async function advise(facts: AdviceFacts): Promise<Suggestion[]> {
  const step = stepSuggestion(facts);
  const first = step ? [step] : [];
  try {
    const { parser } = await loadPromql();
    const expr = parseClean(parser, facts.query);
    if (!expr) return first;
    const ctx: Ctx = { src: facts.query, facts, plan: planLabels(facts) };
    const candidates = [
      ...first,
      guard(() => narrowSuggestion(expr, ctx)),
      guard(() => aggregateSuggestion(expr, ctx)),
      guard(() => topkSuggestion(expr, ctx)),
      guard(() => filterSuggestion(expr, ctx)),
    ];
    return candidates
      .filter((s): s is Suggestion => s !== undefined)
      .filter((s) => s.query === undefined || parseClean(parser, s.query) !== undefined)
      .slice(0, MAX_SUGGESTIONS);
  } catch {
    return first;
  }
}

// One faulty rule must not cost the others.
function guard(build: () => Suggestion | undefined): Suggestion | undefined {
  try {
    return build();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Step

function stepSuggestion(facts: AdviceFacts): Suggestion | undefined {
  const { range, fittingStepSeconds: fitting } = facts;
  if (!range || fitting === undefined || !Number.isFinite(fitting) || fitting <= range.stepSeconds) {
    return undefined;
  }
  return { kind: "step", text: `use step=${formatDuration(fitting)}, at which the whole answer fits` };
}

const DURATION_UNITS: ReadonlyArray<[string, number]> = [
  ["y", 365 * 24 * 3600 * 1000],
  ["w", 7 * 24 * 3600 * 1000],
  ["d", 24 * 3600 * 1000],
  ["h", 3600 * 1000],
  ["m", 60 * 1000],
  ["s", 1000],
  ["ms", 1],
];

/**
 * Seconds as a Prometheus duration, the way Prometheus itself prints one (`90` → `1m30s`, `86400` → `1d`),
 * so the model can pass it straight back as `step`.
 */
export function formatDuration(seconds: number): string {
  let ms = Math.round(seconds * 1000);
  if (ms <= 0) return "0s";
  let out = "";
  for (const [unit, size] of DURATION_UNITS) {
    const count = Math.floor(ms / size);
    if (count > 0) out += `${count}${unit}`;
    ms -= count * size;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Parsing helpers

interface LabelPlan {
  /** The label to group by: fewest distinct values, at least 2 and fewer than the series; never `le`. */
  chosen: { name: string; distinct: number } | undefined;
  /** Labels for `sum by (…)` of plain series; undefined when summing would mix buckets or quantiles wrongly. */
  sumBy: string[] | undefined;
}

interface Ctx {
  src: string;
  facts: AdviceFacts;
  plan: LabelPlan;
}

/** A rewrite of one node. `summed` marks a plain `sum by` around it, which only linear wrappers may carry. */
interface Rewrite {
  text: string;
  summed: boolean;
  how: string;
  groups: string[];
}

// ---------------------------------------------------------------------------------------------------------
// Labels

function planLabels(facts: AdviceFacts): LabelPlan {
  const usable = facts.varyingLabels
    .filter((l) => l.name !== "__name__" && l.distinct >= 2 && l.distinct < facts.seriesTotal)
    .sort((a, b) => a.distinct - b.distinct);
  const chosen = usable.find((l) => l.name !== "le");
  return { chosen, sumBy: sumGrouping(facts, chosen) };
}

/**
 * Summing across `le` buckets or across summary `quantile`s gives numbers that mean nothing, so a plain
 * sum must keep `le` and is not offered at all when the series differ by `quantile`.
 */
function sumGrouping(facts: AdviceFacts, chosen: LabelPlan["chosen"]): string[] | undefined {
  const find = (name: string) => facts.varyingLabels.find((l) => l.name === name);
  if (find("quantile")) return undefined;
  const le = find("le");
  if (!le) return chosen ? [chosen.name] : undefined;
  if (chosen && le.distinct * chosen.distinct < facts.seriesTotal) return ["le", chosen.name];
  return le.distinct < facts.seriesTotal ? ["le"] : undefined;
}

function distinctOf(ctx: Ctx, name: string): number {
  return ctx.facts.varyingLabels.find((l) => l.name === name)?.distinct ?? 1;
}

function byClause(labels: readonly string[]): string {
  return `by (${labels.map(labelToken).join(", ")})`;
}

// ---------------------------------------------------------------------------------------------------------
// Aggregation

// Functions whose per-series results still add up to a meaningful total (a rate of a sum is the sum of the
// rates, a total of per-pod averages of a gauge is a total, …). Their range argument decides the rest.
const SUMMABLE_RANGE_FUNCTIONS = new Set([
  "Rate",
  "Irate",
  "Increase",
  "Delta",
  "Idelta",
  "Deriv",
  "PredictLinear",
  "Changes",
  "Resets",
  "AvgOverTime",
  "SumOverTime",
  "MinOverTime",
  "MaxOverTime",
  "CountOverTime",
  "LastOverTime",
  "FirstOverTime",
  "PresentOverTime",
  "DoubleExponentialSmoothing",
]);

// Element-wise functions that keep a summable series summable (or only touch labels or order).
const SUMMABLE_ELEMENTWISE = new Set([
  "Abs",
  "Ceil",
  "Floor",
  "Round",
  "Clamp",
  "ClampMax",
  "ClampMin",
  "Deg",
  "Rad",
  "LabelReplace",
  "LabelJoin",
  "Sort",
  "SortDesc",
  "SortByLabel",
  "SortByLabelDesc",
  "HistogramCount",
  "HistogramSum",
]);

// Element-wise functions a regrouped argument may pass through (their own result is not summable).
// label_replace/label_join are absent: regrouping inside them could drop the label they read or write.
const POINTWISE = new Set([
  ...[...SUMMABLE_ELEMENTWISE].filter((f) => f !== "LabelReplace" && f !== "LabelJoin"),
  "Sqrt",
  "Exp",
  "Ln",
  "Log2",
  "Log10",
  "Sgn",
  "Sin",
  "Cos",
  "Tan",
  "Asin",
  "Acos",
  "Atan",
  "Sinh",
  "Cosh",
  "Tanh",
  "Asinh",
  "Acosh",
  "Atanh",
]);

// Range functions over a subquery, through which a regrouped inner query may pass (`max_over_time(histogram_quantile(…)[1h:])`).
const RANGE_ARGUMENT: Readonly<Record<string, number>> = {
  QuantileOverTime: 1,
  StddevOverTime: 0,
  StdvarOverTime: 0,
  MadOverTime: 0,
  ...Object.fromEntries([...SUMMABLE_RANGE_FUNCTIONS].map((f) => [f, 0])),
};

// Functions of a histogram that must see the buckets summed *before* they compute, never after.
const HISTOGRAM_ARGUMENT: Readonly<Record<string, number>> = {
  HistogramQuantile: 1,
  HistogramFraction: 2,
  HistogramAvg: 0,
  HistogramStdDev: 0,
  HistogramStdVar: 0,
};

const SHRINKABLE_AGGREGATIONS = new Set(["Sum", "Avg", "Min", "Max", "Count", "Group", "Stddev", "Stdvar"]);

/** Whether `sum by (…) (node)` means something: a per-series quantity that adds up, not already aggregated. */
function isSummable(node: SyntaxNode): boolean {
  switch (node.name) {
    case "VectorSelector":
      return true;
    case "FunctionCall": {
      const name = functionName(node);
      const [first] = args(node);
      if (!first) return false;
      if (SUMMABLE_RANGE_FUNCTIONS.has(name)) return isSummableRange(first);
      return SUMMABLE_ELEMENTWISE.has(name) && isSummable(first);
    }
    case "BinaryExpr":
      return isSummableBinary(node);
    default: {
      const inner = TRANSPARENT_NODES.has(node.name) ? firstExpr(node) : undefined;
      return inner !== undefined && isSummable(inner);
    }
  }
}

function isSummableRange(node: SyntaxNode): boolean {
  const n = throughTransparent(node);
  if (n.name === "MatrixSelector") return true;
  const inner = n.name === "SubqueryExpr" ? firstExpr(n) : undefined;
  return inner !== undefined && isSummable(inner);
}

function throughTransparent(node: SyntaxNode): SyntaxNode {
  let n = node;
  for (let inner = firstExpr(n); TRANSPARENT_NODES.has(n.name) && inner; inner = firstExpr(n)) n = inner;
  return n;
}

function isSummableBinary(node: SyntaxNode): boolean {
  const b = binary(node);
  if (!b) return false;
  const leftVector = valueType(b.left) === "vector";
  const rightVector = valueType(b.right) === "vector";
  if (SET_OPERATORS.has(b.op)) {
    return b.op === "Or" ? isSummable(b.left) && isSummable(b.right) : isSummable(b.left);
  }
  if (COMPARISON.has(b.op)) return b.bool || isSummable(leftVector ? b.left : b.right);
  if (leftVector && rightVector)
    return !b.matching && b.op === "Mul" && isSummable(b.left) && isSummable(b.right);
  // Scaling by a number keeps a sum meaningful (`rate(x[5m]) * 8`, `x / 1024`, `100 - x`); `100 / x` or `x ^ 2` do not.
  const linear = b.op === "Mul" || b.op === "Add" || b.op === "Sub" || (b.op === "Div" && leftVector);
  return linear && isSummable(leftVector ? b.left : b.right);
}

/** The same quantity at a coarser grouping, or undefined when it cannot be said correctly. */
function reduce(node: SyntaxNode, ctx: Ctx): Rewrite | undefined {
  if (valueType(node) !== "vector") return undefined;
  const b = binary(node);
  if (b && valueType(b.left) === "vector" && valueType(b.right) === "vector" && ARITHMETIC.has(b.op)) {
    return reduceVectorPair(node, b, ctx);
  }
  if (isSummable(node)) return sumLeaf(node, ctx);
  if (TRANSPARENT_NODES.has(node.name)) {
    const inner = firstExpr(node);
    return inner && through(node, inner, reduce(inner, ctx), ctx);
  }
  if (node.name === "AggregateExpr") return shrinkAggregation(node, ctx);
  if (node.name === "FunctionCall") return reduceCall(node, ctx);
  if (b) return reduceScalarArithmetic(node, b, ctx);
  return undefined;
}

function sumLeaf(node: SyntaxNode, ctx: Ctx): Rewrite | undefined {
  const groups = ctx.plan.sumBy;
  if (!groups) return undefined;
  const inner = text(ctx.src, unparen(node));
  return { text: `sum ${byClause(groups)} (${inner})`, summed: true, how: "add the series up", groups };
}

/** Carries an inner rewrite out through `outer`, which must not be a sum-breaking wrapper for summed ones. */
function through(
  outer: SyntaxNode,
  inner: SyntaxNode,
  r: Rewrite | undefined,
  ctx: Ctx,
): Rewrite | undefined {
  return r && { ...r, text: splice(ctx.src, outer, [{ node: inner, text: r.text }]) };
}

function reduceVectorPair(node: SyntaxNode, b: Binary, ctx: Ctx): Rewrite | undefined {
  // Matching modifiers mean the sides have different labels: an aggregation could not line them up again.
  if (b.matching) return undefined;
  if (b.op === "Mul") return isSummable(node) ? sumLeaf(node, ctx) : undefined;
  if (b.op !== "Div" && b.op !== "Add" && b.op !== "Sub") return undefined;
  // A ratio of sums, never a sum of ratios (same for differences, which sum fine but may not match up).
  const left = reduce(b.left, ctx);
  const right = reduce(b.right, ctx);
  if (!left || !right) return undefined;
  const edits = [
    { node: b.left, text: left.text },
    { node: b.right, text: right.text },
  ];
  const how = b.op === "Div" ? "compute the ratio from summed sides" : "combine the summed sides";
  return { text: splice(ctx.src, node, edits), summed: false, how, groups: left.groups };
}

function reduceScalarArithmetic(node: SyntaxNode, b: Binary, ctx: Ctx): Rewrite | undefined {
  if (!ARITHMETIC.has(b.op)) return undefined;
  const vector = valueType(b.left) === "vector" ? b.left : b.right;
  const r = reduce(vector, ctx);
  // A plain sum reaching here sits under a non-linear operator (`100 / x`): summing first changes the answer.
  return r?.summed ? undefined : through(node, vector, r, ctx);
}

function reduceCall(call: SyntaxNode, ctx: Ctx): Rewrite | undefined {
  const name = functionName(call);
  const list = args(call);
  const histogramIndex = HISTOGRAM_ARGUMENT[name];
  if (histogramIndex !== undefined) {
    const histogram = list[histogramIndex];
    return (
      histogram &&
      through(call, histogram, regroupHistogram(histogram, ctx, name === "HistogramQuantile"), ctx)
    );
  }
  if (POINTWISE.has(name) && list[0]) {
    const r = reduce(list[0], ctx);
    return r?.summed ? undefined : through(call, list[0], r, ctx);
  }
  const rangeIndex = RANGE_ARGUMENT[name];
  const range = rangeIndex === undefined ? undefined : list[rangeIndex];
  const subquery = range && throughTransparent(range);
  const inner = subquery?.name === "SubqueryExpr" ? firstExpr(subquery) : undefined;
  if (!inner) return undefined;
  const r = reduce(inner, ctx);
  return r?.summed ? undefined : through(call, inner, r, ctx);
}

/** Sum the buckets per (le, label) inside the histogram function, instead of anything around its result. */
function regroupHistogram(histogram: SyntaxNode, ctx: Ctx, quantile: boolean): Rewrite | undefined {
  const chosen = ctx.plan.chosen;
  if (!chosen) return undefined;
  const inner = unparen(histogram);
  const how = quantile ? "compute the quantile from summed buckets" : "compute it from summed histograms";
  if (inner.name === "AggregateExpr") {
    // A list without `le` is fine too: a big answer from such a query can only come from native histograms.
    const r = shrinkAggregation(inner, ctx);
    return r && { ...r, text: splice(ctx.src, histogram, [{ node: inner, text: r.text }]), how };
  }
  if (!isSummable(inner)) return undefined;
  const groups = ["le", chosen.name];
  const summed = `sum ${byClause(groups)} (${text(ctx.src, inner)})`;
  return {
    text: splice(ctx.src, histogram, [{ node: inner, text: summed }]),
    summed: false,
    how,
    groups: [chosen.name],
  };
}

/**
 * The same aggregation by fewer labels: the chosen one if listed, else the listed label with fewest values.
 * `le` stays when listed, because the buckets feed a histogram function. Never the same list, never a new label.
 */
function shrinkAggregation(agg: SyntaxNode, ctx: Ctx): Rewrite | undefined {
  if (!SHRINKABLE_AGGREGATIONS.has(aggregationOp(agg))) return undefined;
  const by = byLabels(ctx.src, agg);
  if (!by) return undefined;
  const { labels } = by;
  const le = labels.find((l) => l.name === "le");
  const total = ctx.facts.seriesTotal;
  const candidates = labels
    .filter((l) => l.name !== "le")
    .map((l) => ({ label: l, distinct: distinctOf(ctx, l.name) }))
    .filter((c) => c.distinct >= 2 && c.distinct < total)
    .sort((a, b) => a.distinct - b.distinct);
  const target = candidates.find((c) => c.label.name === ctx.plan.chosen?.name) ?? candidates[0];
  if (!target) return undefined;
  const kept = le ? [le, target.label] : [target.label];
  if (kept.length >= labels.length) return undefined;
  const list = `(${kept.map((l) => l.token).join(", ")})`;
  const groups = [target.label.name];
  const how = `group by ${target.label.name} only`;
  return { text: splice(ctx.src, agg, [{ node: by.list, text: list }]), summed: false, how, groups };
}

function aggregateSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
  const top = unparen(expr);
  if (valueType(top) !== "vector") return undefined;
  const r = COMPARISON.has(binary(top)?.op ?? "") ? countPassing(top, ctx) : reduce(top, ctx);
  if (!r) return undefined;
  const estimate = Math.min(
    ctx.facts.seriesTotal,
    r.groups.reduce((n, g) => n * distinctOf(ctx, g), 1),
  );
  const per = r.groups.length > 0 ? ` per ${r.groups.join(", ")}` : "";
  const how = r.how.startsWith("group by") ? r.how : `${r.how}${per}`;
  return {
    kind: "aggregate",
    text: `${how}: at most ${estimate} series instead of ${ctx.facts.seriesTotal}`,
    query: r.text,
  };
}

/** A filter's answer is which series pass: count them per group (a `bool` comparison's 0/1 add up the same). */
function countPassing(top: SyntaxNode, ctx: Ctx): Rewrite | undefined {
  const chosen = ctx.plan.chosen;
  if (!chosen) return undefined;
  const op = isFilter(top) ? "count" : "sum";
  const groups = [chosen.name];
  return {
    text: `${op} ${byClause(groups)} (${text(ctx.src, top)})`,
    summed: false,
    how: "count the series that pass",
    groups,
  };
}

// ---------------------------------------------------------------------------------------------------------
// topk / bottomk

// These return at most one series (or a scalar): picking the top few of them means nothing.
const SINGLE_SERIES_FUNCTIONS = new Set(["Absent", "AbsentOverTime", "Vector", "Scalar", "Time", "Pi"]);

function topkSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
  const { facts } = ctx;
  if (facts.seriesTotal <= TOP_K) return undefined;
  const top = unparen(expr);
  if (valueType(top) !== "vector") return undefined;
  if (top.name === "FunctionCall" && SINGLE_SERIES_FUNCTIONS.has(functionName(top))) return undefined;
  const op = top.name === "AggregateExpr" ? aggregationOp(top) : "";
  if (op === "Topk" || op === "Bottomk") return smallerK(top, op, ctx);
  if (op === "LimitK") return undefined;
  const kind = facts.order === "lowest" ? "bottomk" : "topk";
  return { kind, text: topkText(kind, facts), query: `${kind}(${TOP_K}, ${text(ctx.src, top)})` };
}

function smallerK(top: SyntaxNode, op: string, ctx: Ctx): Suggestion | undefined {
  const k = args(top)[0];
  const value = k?.name === "NumberDurationLiteral" ? Number(text(ctx.src, k)) : Number.NaN;
  if (!k || !(value > TOP_K)) return undefined;
  const kind = op === "Bottomk" ? "bottomk" : "topk";
  return {
    kind,
    text: topkText(kind, ctx.facts),
    query: splice(ctx.src, top, [{ node: k, text: String(TOP_K) }]),
  };
}

function topkText(kind: "topk" | "bottomk", facts: AdviceFacts): string {
  const which = kind === "bottomk" ? "lowest" : "highest";
  const base = `keep only the ${TOP_K} ${which} series`;
  return facts.range
    ? `${base} at each step (${kind} picks per step: more can come back over the range)`
    : base;
}

// ---------------------------------------------------------------------------------------------------------
// Filter

// Counters' change is never negative, and idle series sit at exactly 0: `> 0` drops them without needing
// any value from the answer. Other thresholds would have to be guessed, so none is offered.
const NON_NEGATIVE_CHANGE = new Set(["Rate", "Irate", "Increase", "Changes", "Resets"]);
const FILTERABLE_AGGREGATIONS = new Set(["Sum", "Max", "Min", "Avg"]);

function filterSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
  if (ctx.facts.range || ctx.facts.seriesTotal <= 1) return undefined;
  const top = unparen(expr);
  if (!isNonNegativeChange(top)) return undefined;
  return {
    kind: "filter",
    text: "keep only the series that changed (above 0); idle series drop out",
    query: `${text(ctx.src, top)} > 0`,
  };
}

function isNonNegativeChange(node: SyntaxNode): boolean {
  if (node.name === "FunctionCall") return NON_NEGATIVE_CHANGE.has(functionName(node));
  if (node.name !== "AggregateExpr" || !FILTERABLE_AGGREGATIONS.has(aggregationOp(node))) return false;
  const [body] = args(node);
  return body !== undefined && isNonNegativeChange(unparen(body));
}

// ---------------------------------------------------------------------------------------------------------
// Narrow

// These can invent labels the selector's series never had; a matcher on such a label would match nothing.
const LABEL_MAKERS = new Set(["LabelReplace", "LabelJoin", "Info"]);

function narrowSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
  const focus = ctx.facts.focus;
  if (!focus) return undefined;
  const selectors: SyntaxNode[] = [];
  let labelsMade = false;
  expr.cursor().iterate((n) => {
    if (n.name === "VectorSelector") selectors.push(n.node);
    if (n.name === "FunctionIdentifier" && LABEL_MAKERS.has(n.node.firstChild?.name ?? "")) labelsMade = true;
    if (n.name === "CountValues") labelsMade = true;
  });
  const [selector] = selectors;
  if (!selector || selectors.length !== 1 || labelsMade || matchedLabels(selector, ctx).has(focus.name)) {
    return undefined;
  }
  const matcher = `${labelToken(focus.name)}=${JSON.stringify(focus.value)}`;
  const which = ctx.facts.order === "unusual" ? "most unusual" : ctx.facts.order;
  return {
    kind: "narrow",
    text: `keep only the series with ${matcher}, which the ${which} series share`,
    query: splice(ctx.src, expr, [{ node: selector, text: withMatcher(selector, matcher, ctx) }]),
  };
}

/** Labels the selector already matches on; a metric name counts as a `__name__` matcher. */
function matchedLabels(selector: SyntaxNode, ctx: Ctx): Set<string> {
  const names = new Set<string>();
  if (child(selector, "Identifier")) names.add("__name__");
  const matchers = child(selector, "LabelMatchers");
  for (const m of matchers ? children(matchers) : []) {
    if (m.name === "QuotedLabelName") names.add("__name__");
    const label = m.name === "UnquotedLabelMatcher" || m.name === "QuotedLabelMatcher" ? m.firstChild : null;
    if (label) names.add(labelNameOf(ctx.src, label));
  }
  return names;
}

function withMatcher(selector: SyntaxNode, matcher: string, ctx: Ctx): string {
  const matchers = child(selector, "LabelMatchers");
  if (!matchers) return `${text(ctx.src, selector)}{${matcher}}`;
  const last = children(matchers).at(-1);
  // After the last matcher rather than before `}`, so a trailing comma stays valid.
  const at = last ? last.to : matchers.from + 1;
  const insert = last ? `,${matcher}` : matcher;
  return ctx.src.slice(selector.from, at) + insert + ctx.src.slice(at, selector.to);
}
