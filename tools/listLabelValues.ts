import * as z from "zod";
import { readOnly } from "./annotations.js";
import { listLabelValuesArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListLabelValues = defineTool({
  name: "ListLabelValues",
  description:
    "List the values of one label (untrusted data), sorted: the jobs, the instances, the status codes a metric reports. " +
    'Use match to keep to some series (e.g. label code with match http_requests_total{job="api"}) and start to keep to recent ones.',
  inputSchema: listLabelValuesArguments,
  outputSchema: () =>
    z.object({
      truncated: truncation,
      label: z.string(),
      values: z.array(z.string()).describe("The label's values, sorted by code point"),
    }),
  annotations: readOnly("List a label's values"),
  run: lazyRun(() => import("./run/listLabelValues.js")),
});
