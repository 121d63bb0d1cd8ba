import * as z from "zod";
import { QueryResultCollector } from "../src/results/queryResult.js";
import { getFromWorkspace, readClock, readOnly } from "./common.js";
import { profile, query, region, seriesLimit, time, workspaceId } from "./params.js";
import { resolveTime } from "./relativeTime.js";
import { expectShape, queryData, queryResult } from "./results.js";
import { defineTool } from "./types.js";

export const ExecuteQuery = defineTool({
  name: "ExecuteQuery",
  description:
    "Evaluate a PromQL expression at a single instant (Prometheus /api/v1/query) and return Prometheus's data. " +
    "Use it for current values, e.g. `up` or `sum(rate(http_requests_total[5m]))`; use ExecuteRangeQuery for values over time. " +
    "A result too large for the model is cut to the series with the highest values and marked `truncated`.",
  inputSchema: z.object({ workspace_id: workspaceId, query, time, region, profile, limit: seriesLimit }),
  outputSchema: queryResult,
  annotations: readOnly("Run an instant PromQL query"),
  async run(args, call) {
    const time = args.time == null ? undefined : resolveTime("time", args.time, readClock(call));
    const result = await getFromWorkspace(
      args,
      call,
      { path: "/query", params: { query: args.query, time } },
      () => new QueryResultCollector({ maxBytes: call.maxResultBytes, limit: args.limit ?? undefined }, args),
    );
    expectShape(queryData, result.data, "query result");
    return result;
  },
});
