import * as z from "zod";
import { QueryResultCollector } from "../src/results/queryResult.js";
import { getFromWorkspace, readClock, readOnly } from "./common.js";
import { end, profile, query, region, seriesLimit, start, step, workspaceId } from "./params.js";
import { resolveTime } from "./relativeTime.js";
import { expectShape, queryData, queryResult } from "./results.js";
import { defineTool } from "./types.js";

export const ExecuteRangeQuery = defineTool({
  name: "ExecuteRangeQuery",
  description:
    "Evaluate a PromQL expression over a time range (Prometheus /api/v1/query_range) and return Prometheus's data (a matrix). " +
    "Use it for trends and graphs; keep (end - start) / step under 11,000 points. " +
    "A result too large for the model is cut to the series with the highest values and marked `truncated`.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    query,
    start,
    end,
    step,
    region,
    profile,
    limit: seriesLimit,
  }),
  outputSchema: queryResult,
  annotations: readOnly("Run a PromQL range query"),
  async run(args, call) {
    // One reading for both bounds: start=now-1h, end=now spans exactly an hour.
    const now = readClock(call);
    const start = resolveTime("start", args.start, now);
    const end = resolveTime("end", args.end, now);
    const result = await getFromWorkspace(
      args,
      call,
      { path: "/query_range", params: { query: args.query, start, end, step: args.step } },
      () => new QueryResultCollector({ maxBytes: call.maxResultBytes, limit: args.limit ?? undefined }, args),
    );
    expectShape(queryData, result.data, "query result");
    return result;
  },
});
