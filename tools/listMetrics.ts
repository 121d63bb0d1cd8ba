import { z } from "zod";
import { getFromWorkspace, readOnly } from "./common.js";
import { profile, region, workspaceId } from "./params.js";
import { expectShape } from "./results.js";
import { defineTool } from "./types.js";

const metricNames = z.array(z.string());

export const ListMetrics = defineTool({
  name: "ListMetrics",
  description:
    "List every metric name stored in the Prometheus workspace, sorted. " +
    "Use it first to discover what can be queried before writing PromQL.",
  inputSchema: z.object({ workspace_id: workspaceId, region, profile }),
  outputSchema: z.object({ metrics: z.array(z.string()).describe("Metric names, sorted by code point") }),
  annotations: readOnly("List metric names"),
  async run(args, call) {
    const data = await getFromWorkspace(args, call, "/label/__name__/values", {});
    const names = [...expectShape(metricNames, data, "metric name list")];
    // Default sort compares UTF-16 code units, which is code-point order for metric names (ASCII in practice).
    return { metrics: names.sort() };
  },
});
