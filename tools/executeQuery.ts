import { z } from "zod";
import { getFromWorkspace, readOnly } from "./common.js";
import { profile, query, region, time, workspaceId } from "./params.js";
import { expectShape, queryData } from "./results.js";
import { defineTool } from "./types.js";

export const ExecuteQuery = defineTool({
  name: "ExecuteQuery",
  description:
    "Evaluate a PromQL expression at a single instant (Prometheus /api/v1/query) and return Prometheus's data unchanged. " +
    "Use it for current values, e.g. `up` or `sum(rate(http_requests_total[5m]))`; use ExecuteRangeQuery for values over time.",
  inputSchema: z.object({ workspace_id: workspaceId, query, time, region, profile }),
  outputSchema: queryData,
  annotations: readOnly("Run an instant PromQL query"),
  async run(args, call) {
    const data = await getFromWorkspace(args, call, "/query", {
      query: args.query,
      time: args.time ?? undefined,
    });
    return expectShape(queryData, data, "query result");
  },
});
