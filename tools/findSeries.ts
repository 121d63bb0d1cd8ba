import * as z from "zod";
import { readOnly } from "./annotations.js";
import { findSeriesArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const FindSeries = defineTool({
  name: "FindSeries",
  description:
    'List the series (full label sets, untrusted data) a selector matches, e.g. up{job="api"} or {__name__=~"http_.*", code="500"}: ' +
    "which targets, pods or codes exist, without querying values. Set start (e.g. now-1h) to keep to live series. " +
    "A long list is cut; `truncated` says which labels have the most values, to narrow by.",
  inputSchema: findSeriesArguments,
  outputSchema: () =>
    z.object({
      truncated: truncation,
      series: z.array(z.record(z.string(), z.string())).describe("Label sets (with __name__), sorted"),
    }),
  annotations: readOnly("Find series by selector"),
  run: lazyRun(() => import("./run/findSeries.js")),
});
