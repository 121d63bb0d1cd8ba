import * as z from "zod";
import { readOnly } from "./annotations.js";
import { getMetricMetadataArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const GetMetricMetadata = defineTool({
  name: "GetMetricMetadata",
  description:
    "Show what metrics are: type (counter, gauge, histogram, summary), help text and unit, as scraped targets declare them (untrusted data). " +
    "Use it before choosing a function: rate() for a counter, histogram_quantile() for a histogram's _bucket series. " +
    "Give metric for one (e.g. http_requests_total, without _bucket/_count suffixes for histograms).",
  inputSchema: getMetricMetadataArguments,
  outputSchema: () =>
    z.object({
      truncated: truncation,
      metadata: z
        .array(
          z.object({ metric: z.string(), type: z.string(), help: z.string(), unit: z.string().optional() }),
        )
        .describe("One entry per metric and description, sorted by metric"),
    }),
  annotations: readOnly("Show metric types and help"),
  run: lazyRun(() => import("./run/getMetricMetadata.js")),
});
