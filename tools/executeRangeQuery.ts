import { z } from "zod";
import { prometheusGet } from "../src/prometheus/dataPlane.js";
import { resolveTarget } from "../src/prometheus/workspaces.js";
import { dataPlaneOptions, readOnly, usableProfile } from "./common.js";
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
    const chosenProfile = usableProfile(args.profile, call);
    const target = await resolveTarget(
      { workspaceId: args.workspace_id, region: args.region, profile: chosenProfile },
      call.settings,
      call,
    );
    const data = await prometheusGet(
      target.apiUrl,
      "/query_range",
      { query: args.query, start: args.start, end: args.end, step: args.step },
      dataPlaneOptions(target, chosenProfile, call),
    );
    return expectShape(queryData, data, "query result");
  },
});
