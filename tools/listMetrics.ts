import * as z from "zod";
import { MetricNamesCollector } from "../src/results/metricNames.js";
import { getFromWorkspace, readOnly } from "./common.js";
import { namesLimit, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool, ToolError } from "./types.js";

export const ListMetrics = defineTool({
  name: "ListMetrics",
  description:
    "List every metric name stored in the Prometheus workspace, sorted. " +
    "Use it first to discover what can be queried before writing PromQL. " +
    "A list over the token budget is cut to the first names; `truncated` (its first key) names the largest families of names and how to list one.",
  inputSchema: z.object({ workspace_id: workspaceId, region, profile, limit: namesLimit }),
  outputSchema: z.object({
    metrics: z.array(z.string()).describe("Metric names, sorted by code point"),
    truncated: truncation,
  }),
  annotations: readOnly("List metric names"),
  async run(args, call) {
    const limit = args.limit ?? undefined;
    // Prometheus 2.49+ applies `limit` to label values itself, in name order; one more than asked tells
    // whether there are more. Older servers ignore it (one that rejects it is asked again without it),
    // and the list is cut here either way.
    const askedUpstream = limit === undefined ? undefined : limit + 1;
    const names = await getFromWorkspace(
      args,
      call,
      {
        path: "/label/__name__/values",
        params: { limit: askedUpstream === undefined ? undefined : String(askedUpstream) },
        optionalParams: ["limit"],
      },
      () => new MetricNamesCollector({ budget: call.budget, limit, askedUpstream }),
    );
    if (!names) throw new ToolError("Prometheus answered with an unexpected metric name list payload.");
    return names;
  },
});
