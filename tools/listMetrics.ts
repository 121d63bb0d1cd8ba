import * as z from "zod";
import { metricNamesCollector } from "../src/results/metricNames.js";
import { expectList, getFromWorkspace, readOnly, upstreamLimit } from "./common.js";
import { namesLimit, optionalMatch, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListMetrics = defineTool({
  name: "ListMetrics",
  description:
    "List the metric names stored in the Prometheus workspace, sorted. " +
    'Use it to discover what can be queried before writing PromQL; match narrows it (e.g. {__name__=~"http_.*"}, or {job="api"} for one job\'s metrics). ' +
    "A list over the token budget is cut to the first names; `truncated` (its first key) names the largest families of names.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    region,
    profile,
    limit: namesLimit,
    match: optionalMatch,
  }),
  outputSchema: z.object({
    metrics: z.array(z.string()).describe("Metric names, sorted by code point"),
    truncated: truncation,
  }),
  annotations: readOnly("List metric names"),
  async run(args, call) {
    const limit = args.limit ?? undefined;
    const askedUpstream = upstreamLimit(limit);
    const names = await getFromWorkspace(
      args,
      call,
      {
        path: "/label/__name__/values",
        params: { "match[]": args.match ?? undefined, limit: askedUpstream?.toString() },
        optionalParams: ["limit"],
      },
      () => metricNamesCollector({ budget: call.budget, limit, askedUpstream }),
    );
    return expectList(names, "metric name list");
  },
});
