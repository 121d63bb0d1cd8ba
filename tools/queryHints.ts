import { selectorsIn } from "../src/promql/selectors.js";
import { serves, type ToolCall } from "./types.js";

/**
 * What a query that matched nothing tells the model, when a label is the likelier mistake than the
 * metric name (the query names a metric and matches on its labels: `http_requests_total{status=~"5.."}`
 * where the label is `code`): look at the metric's labels and their values. Undefined (the default
 * hint about metric names) otherwise, or when ListLabels is not served.
 */
export function labelHint(query: string, range: boolean, call: ToolCall): () => Promise<string | undefined> {
  return async () => {
    if (!serves(call, "ListLabels")) return undefined;
    const selectors = await selectorsIn(query).catch(() => undefined);
    const labelled = selectors?.find(
      (selector) => selector.metric !== undefined && selector.labels.length > 0,
    );
    if (labelled?.metric === undefined) return undefined;
    const { metric, labels } = labelled;
    const values = serves(call, "ListLabelValues")
      ? ` and ListLabelValues (label ${labels[0]}, match ${metric}) the values it takes`
      : "";
    const names = serves(call, "ListMetrics") ? " ListMetrics checks the metric name." : "";
    const rangeTool = serves(call, "ExecuteRangeQuery") ? " or use ExecuteRangeQuery" : "";
    const when = range
      ? " Or widen the time range (an earlier start)."
      : ` An instant query sees only series with a sample in the 5 minutes before its time: for older data pass an earlier time${rangeTool}.`;
    return `No series matched. Check the labels first: ListLabels with match ${metric} lists the labels ${metric} has${values}.${names}${when}`;
  };
}
