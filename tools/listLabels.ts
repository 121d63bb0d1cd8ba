import * as z from "zod";
import { readOnly } from "./annotations.js";
import { listLabelsArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListLabels = defineTool({
  name: "ListLabels",
  description:
    "List label names (job, instance, code…), sorted. Use it before filtering on a label: with match " +
    '(e.g. http_requests_total or {job="api"}) it gives the labels those series have, so a guess such as status= instead of code= is caught. ' +
    "Then ListLabelValues for a label's values.",
  inputSchema: listLabelsArguments,
  outputSchema: () =>
    z.object({
      truncated: truncation,
      labels: z.array(z.string()).describe("Label names, sorted by code point"),
    }),
  annotations: readOnly("List label names"),
  run: lazyRun(() => import("./run/listLabels.js")),
});
