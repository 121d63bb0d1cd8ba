import { children, labelNameOf, loadPromql, parseClean, text } from "./syntax.js";

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
    const selector = node.node;
    let metric: string | undefined;
    const labels: string[] = [];
    for (const part of children(selector)) {
      if (part.name === "Identifier") metric = text(query, part);
      if (part.name !== "LabelMatchers") continue;
      for (const matcher of children(part)) {
        // A quoted name alone in the braces (`{"http.requests", code="500"}`) is a metric name (Prometheus 3).
        if (matcher.name === "QuotedLabelName") {
          metric = labelNameOf(query, matcher);
          continue;
        }
        const name = children(matcher).find((c) => c.name === "LabelName" || c.name === "QuotedLabelName");
        if (name === undefined) continue;
        const label = labelNameOf(query, name);
        if (label !== "__name__") labels.push(label);
      }
    }
    found.push({ metric, labels });
    return false;
  });
  return found;
}
