import { z } from "zod";
import { prometheusGet } from "../src/prometheus/dataPlane.js";
import { resolveTarget } from "../src/prometheus/workspaces.js";
import { dataPlaneOptions, readOnly, usableProfile } from "./common.js";
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
    const chosenProfile = usableProfile(args.profile, call);
    const target = await resolveTarget(
      { workspaceId: args.workspace_id, region: args.region, profile: chosenProfile },
      call.settings,
      call,
    );
    const data = await prometheusGet(
      target.apiUrl,
      "/query",
      { query: args.query, time: args.time ?? undefined },
      dataPlaneOptions(target, chosenProfile, call),
    );
    return expectShape(queryData, data, "query result");
  },
});
