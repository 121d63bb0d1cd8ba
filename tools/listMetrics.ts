import * as z from "zod";
import { readOnly } from "./annotations.js";
import { listMetricsArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListMetrics = defineTool({
  name: "ListMetrics",
  description:
    "List the metric names stored in Prometheus, sorted. " +
    'Use it to discover what can be queried before writing PromQL; match narrows it (e.g. {__name__=~"http_.*"}, or {job="api"} for one job\'s metrics). ' +
    "A list over the token budget is cut to the first names; `truncated` (its first key) names the largest families of names.",
  inputSchema: listMetricsArguments,
  outputSchema: () =>
    z.object({
      metrics: z.array(z.string()).describe("Metric names, sorted by code point"),
      truncated: truncation,
    }),
  annotations: readOnly("List metric names"),
  run: lazyRun(() => import("./run/listMetrics.js")),
});
