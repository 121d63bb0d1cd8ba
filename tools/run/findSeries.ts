import type * as z from "zod";
import { compareLabelSets, LabelCardinality, labelSet } from "../../src/results/labelSets.js";
import type { findSeriesArguments } from "../arguments.js";
import { lookUp } from "../common.js";
import { serves, type ToolCall } from "../types.js";

/** The labels (and metric names) a cut list's note names, most values first. */
const LABELS_NAMED = 6;

/** FindSeries's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export function run(args: z.output<typeof findSeriesArguments>, call: ToolCall) {
  return lookUp(
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
  );
}

/** Where to check a selector that matched nothing, among the tools served. */
function lookups(call: ToolCall): string {
  const checks = [
    serves(call, "ListMetrics") ? "the metric name with ListMetrics" : "",
    serves(call, "ListLabels") ? "the label names with ListLabels" : "",
  ].filter(Boolean);
  return checks.length === 0 ? "" : `: check ${checks.join(" and ")}`;
}
