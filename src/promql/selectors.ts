import {
  binary,
  children,
  functionName,
  labelNameOf,
  loadPromql,
  type PromqlModule,
  parseClean,
  type SyntaxNode,
  stringValueOf,
  text,
} from "./syntax.js";

/** What one vector selector of a query asks for: its metric name, if written, and the labels it matches on. */
export interface SelectorFacts {
  metric: string | undefined;
  /** Label names matched on, besides `__name__`. */
  labels: string[];
}

/**
 * The vector selectors of a PromQL query, in the order written (`rate(http_requests_total{code="500"}[5m])`
 * → metric http_requests_total, labels [code]); undefined when the query does not parse.
 */
export async function selectorsIn(query: string): Promise<SelectorFacts[] | undefined> {
  const { parser } = await loadPromql();
  const expr = parseClean(parser, query);
  if (expr === undefined) return undefined;
  const found: SelectorFacts[] = [];
  expr.cursor().iterate((node) => {
    if (node.name !== "VectorSelector") return true;
    found.push(selectorFacts(query, node.node));
    return false;
  });
  return found;
}

/**
 * The metric name is the selector's identifier, a quoted name alone in the braces (`{"http.requests",
 * code="500"}`, Prometheus 3), or an equality on `__name__` (`{__name__="up"}`).
 */
function selectorFacts(query: string, selector: SyntaxNode): SelectorFacts {
  let metric: string | undefined;
  let nameEquals: string | undefined;
  const labels: string[] = [];
  for (const part of children(selector)) {
    if (part.name === "Identifier") metric = text(query, part);
    if (part.name !== "LabelMatchers") continue;
    for (const matcher of children(part)) {
      if (matcher.name === "QuotedLabelName") {
        metric = labelNameOf(query, matcher);
        continue;
      }
      const pieces = children(matcher);
      const name = pieces.find((c) => c.name === "LabelName" || c.name === "QuotedLabelName");
      if (name === undefined) continue;
      const label = labelNameOf(query, name);
      if (label !== "__name__") {
        labels.push(label);
        continue;
      }
      const value = pieces.find((c) => c.name === "StringLiteral");
      const op = pieces.find((c) => c.name === "MatchOp")?.firstChild?.name;
      if (op === "EqlSingle" && value !== undefined) nameEquals = stringValueOf(query, value);
    }
  }
  return { metric: metric ?? nameEquals, labels };
}

/** One metric a query reads, by name. */
export interface MetricRead {
  metric: string;
  /**
   * False where the query can have a result without the metric: under `absent()`/`absent_over_time()`
   * (which answer when it has no series), in an operand of `or`, on the right of `unless`.
   */
  required: boolean;
}

/** Functions that answer precisely when what they read has no series. */
const ABSENCE_FUNCTIONS = new Set(["Absent", "AbsentOverTime"]);

/**
 * The metrics a query reads by name (selectors without a metric name are left out), in the order written,
 * each once (required if any of its reads is); undefined when the query does not parse. Synchronous, given
 * the loaded parser (loadPromql), so that a list of rules is read without awaiting each.
 */
export function metricReadsOf(promql: PromqlModule, query: string): MetricRead[] | undefined {
  const expr = parseClean(promql.parser, query);
  if (expr === undefined) return undefined;
  const reads = new Map<string, boolean>();
  const walk = (node: SyntaxNode, required: boolean): void => {
    if (node.name === "VectorSelector") {
      const { metric } = selectorFacts(query, node);
      if (metric !== undefined) reads.set(metric, (reads.get(metric) ?? false) || required);
      return;
    }
    const inside = required && !(node.name === "FunctionCall" && ABSENCE_FUNCTIONS.has(functionName(node)));
    const operands = binary(node);
    for (const part of children(node)) {
      const optional =
        operands !== undefined &&
        (operands.op === "Or" ||
          (operands.op === "Unless" && part.from === operands.right.from && part.to === operands.right.to));
      walk(part, inside && !optional);
    }
  };
  walk(expr, true);
  return [...reads].map(([metric, required]) => ({ metric, required }));
}
