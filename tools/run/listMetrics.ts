import type * as z from "zod";
import { metricNamesSpec } from "../../src/results/metricNames.js";
import type { listMetricsArguments } from "../arguments.js";
import { lookUp } from "../common.js";
import type { ToolCall } from "../types.js";

/** ListMetrics's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export function run(args: z.output<typeof listMetricsArguments>, call: ToolCall) {
  return lookUp(args, call, "/label/__name__/values", metricNamesSpec, "metric name list");
}
