// The question a query result answers, in a module of its own: the collector (queryResult.ts), the series
// descriptions (description.ts) and the cut (cut.ts) all read it, and queryResult.ts imports the other two,
// which would otherwise import it back.
import type { QueryRange } from "./curves.js";
import type { Order } from "./ranking.js";

/** What the tool asked Prometheus, and how the caller wants a cut made. */
export interface QueryAsked {
  /** The PromQL expression asked. */
  query: string;
  /** A range query's range, in seconds; undefined for an instant query. */
  range?: QueryRange | undefined;
  /** An instant query's evaluation time (Unix seconds), when known. */
  time?: number | undefined;
  order: Order;
  /** The caller's `limit`: the most series (or samples) returned in `result`. */
  limit?: number | undefined;
  /**
   * What to tell the model when nothing matched, worked out only then (it may parse the query); the
   * default hints, which send it to ListMetrics, when unset or undefined.
   */
  emptyHint?: (() => Promise<string | undefined>) | undefined;
  /**
   * How the answer is written: `compact` (the default), `exact` (the call's `exact: true`: Prometheus's own
   * shape and value strings in `result`), `legacy` (PYTHON_COMPAT: today's answers byte for byte, cut ones included).
   */
  form: "compact" | "exact" | "legacy";
}
