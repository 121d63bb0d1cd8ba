import type * as z from "zod";
import { ListCollector } from "../../src/results/entryList.js";
import { compareMetadata, type MetadataEntry, metadataEntries } from "../../src/results/metadata.js";
import { isPlainObject } from "../../src/util/json.js";
import type { getMetricMetadataArguments } from "../arguments.js";
import { expectList, getFromWorkspace } from "../common.js";
import type { ToolCall } from "../types.js";
import { serves } from "../types.js";

/**
 * Metadata is one JSON object (metric name → descriptions), not an array that can be streamed: it is
 * held whole, up to this size (a catalog of 100,000 metrics with their help texts).
 */
const MAX_METADATA_BYTES = 64 * 1024 * 1024;

/** GetMetricMetadata's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof getMetricMetadataArguments>, call: ToolCall) {
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
}
