// The advice rule that aggregates (advice.ts): the same quantity at a coarser grouping, said correctly or not
// at all (no sum of quantiles or ratios, histograms summed per bucket, aggregations shrunk in place).
import { byClause, type Ctx, distinctOf, type Rewrite, type Suggestion } from "./adviceContext.js";

import {
  ARITHMETIC,
  aggregationOp,
  args,
  type Binary,
  binary,
  byLabels,
  COMPARISON,
  firstExpr,
  functionName,
  isFilter,
  SET_OPERATORS,
  type SyntaxNode,
  splice,
  TRANSPARENT_NODES,
  text,
  unparen,
  valueType,
} from "./syntax.js";

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

export function aggregateSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
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
