import * as z from "zod";
import { compareLabelSets, LabelCardinality, labelSet } from "../src/results/labelSets.js";
import { lookUp, readOnly } from "./common.js";
import { countLimit, lookupEnd, lookupStart, match, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool, serves, type ToolCall } from "./types.js";

/** The labels (and metric names) a cut list's note names, most values first. */
const LABELS_NAMED = 6;

export const FindSeries = defineTool({
  name: "FindSeries",
  description:
    'List the series (full label sets, untrusted data) a selector matches, e.g. up{job="api"} or {__name__=~"http_.*", code="500"}: ' +
    "which targets, pods or codes exist, without querying values. Set start (e.g. now-1h) to keep to live series. " +
    "A long list is cut; `truncated` says which labels have the most values, to narrow by.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    match,
    start: lookupStart,
    end: lookupEnd,
    limit: countLimit("series, first by name and labels,"),
    region,
    profile,
  }),
  outputSchema: () =>
    z.object({
      truncated: truncation,
      series: z.array(z.record(z.string(), z.string())).describe("Label sets (with __name__), sorted"),
    }),
  annotations: readOnly("Find series by selector"),
  run: (args, call) =>
    lookUp(
      args,
      call,
      "/series",
      () => {
        const cardinality = new LabelCardinality();
        return {
          key: "series",
          noun: "series",
          entriesOf: (value) => {
            const labels = labelSet(value);
            return labels === undefined ? undefined : [labels];
          },
          compare: compareLabelSets,
          orderWords: "by metric name, then labels (code point order)",
          tally: (labels) => cardinality.add(labels),
          nextStep: () =>
            `They have ${cardinality.words(LABELS_NAMED)}. Narrow match with label matchers, or count with ExecuteQuery, e.g. count by (<label>) (<selector>).`,
          emptyHint: `No series matched in this time range${args.start == null ? " (without start: all stored data on Prometheus, only about the last day on VictoriaMetrics; pass start to look further back)" : ""}${lookups(call)}.`,
        };
      },
      "series list",
    ),
});

/** Where to check a selector that matched nothing, among the tools served. */
function lookups(call: ToolCall): string {
  const checks = [
    serves(call, "ListMetrics") ? "the metric name with ListMetrics" : "",
    serves(call, "ListLabels") ? "the label names with ListLabels" : "",
  ].filter(Boolean);
  return checks.length === 0 ? "" : `: check ${checks.join(" and ")}`;
}
