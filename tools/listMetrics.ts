import * as z from "zod";
import { metricNamesSpec } from "../src/results/metricNames.js";
import { lookUp, readOnly } from "./common.js";
import { namesLimit, optionalMatch, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListMetrics = defineTool({
  name: "ListMetrics",
  description:
    "List the metric names stored in Prometheus, sorted. " +
    'Use it to discover what can be queried before writing PromQL; match narrows it (e.g. {__name__=~"http_.*"}, or {job="api"} for one job\'s metrics). ' +
    "A list over the token budget is cut to the first names; `truncated` (its first key) names the largest families of names.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    region,
    profile,
    limit: namesLimit,
    match: optionalMatch,
  }),
  outputSchema: () =>
    z.object({
      metrics: z.array(z.string()).describe("Metric names, sorted by code point"),
      truncated: truncation,
    }),
  annotations: readOnly("List metric names"),
  run: (args, call) => lookUp(args, call, "/label/__name__/values", metricNamesSpec, "metric name list"),
});
