// The advice rules that keep fewer series without regrouping (advice.ts): the top or bottom k, a filter on
// what changed, and a matcher on the label value the unusual series share.
import type { AdviceFacts, Ctx, Suggestion } from "./adviceContext.js";

import {
  aggregationOp,
  args,
  child,
  children,
  functionName,
  labelNameOf,
  labelToken,
  type SyntaxNode,
  splice,
  text,
  unparen,
  valueType,
} from "./syntax.js";

const TOP_K = 10;

// ---------------------------------------------------------------------------------------------------------
// topk / bottomk

// These return at most one series (or a scalar): picking the top few of them means nothing.
const SINGLE_SERIES_FUNCTIONS = new Set(["Absent", "AbsentOverTime", "Vector", "Scalar", "Time", "Pi"]);

export function topkSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
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

export function filterSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
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

export function narrowSuggestion(expr: SyntaxNode, ctx: Ctx): Suggestion | undefined {
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
