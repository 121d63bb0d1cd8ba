import * as z from "zod";
import { ListCollector } from "../src/results/entryList.js";
import { compareMetadata, type MetadataEntry, metadataEntries } from "../src/results/metadata.js";
import { isPlainObject } from "../src/util/json.js";
import { expectList, getFromWorkspace, readOnly } from "./common.js";
import { countLimit, profile, region, workspaceId, wrongType } from "./params.js";
import { truncation } from "./results.js";
import { defineTool, serves } from "./types.js";

/**
 * Metadata is one JSON object (metric name → descriptions), not an array that can be streamed: it is
 * held whole, up to this size (a catalog of 100,000 metrics with their help texts).
 */
const MAX_METADATA_BYTES = 64 * 1024 * 1024;

export const GetMetricMetadata = defineTool({
  name: "GetMetricMetadata",
  description:
    "Show what metrics are: type (counter, gauge, histogram, summary), help text and unit, as scraped targets declare them (untrusted data). " +
    "Use it before choosing a function: rate() for a counter, histogram_quantile() for a histogram's _bucket series. " +
    "Give metric for one (e.g. http_requests_total, without _bucket/_count suffixes for histograms).",
  inputSchema: z.object({
    workspace_id: workspaceId,
    metric: z
      .string({ error: wrongType("metric", "a metric name such as http_requests_total") })
      .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,1023}$/, {
        error: "metric must be a metric name: letters, digits, _ or :, not starting with a digit",
      })
      .nullable()
      .optional()
      .describe("Metric name, e.g. http_requests_total. Omit to list every metric's metadata."),
    limit: countLimit("metrics, first by name,"),
    region,
    profile,
  }),
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
  async run(args, call) {
    const limit = args.limit ?? undefined;
    const metric = args.metric ?? undefined;
    const list = await getFromWorkspace(
      args,
      call,
      // No `limit` upstream: Prometheus applies it to metrics in no particular order, and the first by name
      // are what is returned here.
      { path: "/metadata", params: { metric } },
      () => {
        const collector = new ListCollector<MetadataEntry>(
          {
            key: "metadata",
            noun: "metric descriptions",
            countKey: "metrics",
            // One element per metric: [name, its descriptions].
            entriesOf: (pair) => (Array.isArray(pair) ? metadataEntries({ [pair[0]]: pair[1] }) : undefined),
            compare: compareMetadata,
            orderWords: "by metric name (code point order)",
            nextStep: () => "Ask for one metric with metric (e.g. http_requests_total).",
            emptyHint:
              metric === undefined
                ? "Prometheus holds no metric metadata: it exists only for metrics scraped from targets (their # TYPE and # HELP lines), not for recorded, remote-written or backfilled ones."
                : `No metadata for ${metric}: metadata exists only for metrics scraped from targets (their # TYPE and # HELP lines), not for recorded, remote-written or backfilled ones, so the name may well be right (a histogram's is under its name without _bucket, _sum or _count).${serves(call, "FindSeries") ? " FindSeries shows whether it has series." : ""}`,
          },
          { budget: call.budget, limit },
        );
        return {
          // Never streamed: no metric is named "" (the key under `data` that would be).
          format: { streamedKey: "", maxSkeletonBytes: MAX_METADATA_BYTES },
          element: () => undefined,
          finish(data: unknown, answerBytes: number) {
            if (!isPlainObject(data)) return undefined;
            for (const pair of Object.entries(data)) collector.offer(pair);
            return collector.finish(data, answerBytes);
          },
        };
      },
    );
    return expectList(list, "metadata");
  },
});
