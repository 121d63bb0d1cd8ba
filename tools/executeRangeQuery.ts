import { z } from "zod";
import { getFromWorkspace, readOnly } from "./common.js";
import { end, profile, query, region, start, step, workspaceId } from "./params.js";
import { expectShape, queryData } from "./results.js";
import { defineTool } from "./types.js";

export const ExecuteRangeQuery = defineTool({
  name: "ExecuteRangeQuery",
  description:
    "Evaluate a PromQL expression over a time range (Prometheus /api/v1/query_range) and return Prometheus's data unchanged (a matrix). " +
    "Use it for trends and graphs; keep (end - start) / step under 11,000 points.",
  inputSchema: z.object({ workspace_id: workspaceId, query, start, end, step, region, profile }),
  outputSchema: queryData,
  annotations: readOnly("Run a PromQL range query"),
  async run(args, call) {
    const data = await getFromWorkspace(args, call, "/query_range", {
      query: args.query,
      start: args.start,
      end: args.end,
      step: args.step,
    });
    return expectShape(queryData, data, "query result");
  },
});
