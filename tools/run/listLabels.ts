import type * as z from "zod";
import { byCodePoint, stringEntries } from "../../src/results/entryList.js";
import type { listLabelsArguments } from "../arguments.js";
import { lookUp } from "../common.js";
import type { ToolCall } from "../types.js";
import { serves } from "../types.js";

/** ListLabels's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export function run(args: z.output<typeof listLabelsArguments>, call: ToolCall) {
  return lookUp(
    args,
    call,
    "/labels",
    () => ({
      key: "labels",
      noun: "label names",
      entriesOf: stringEntries,
      compare: byCodePoint,
      orderWords: "by name (code point order)",
      nextStep: () => 'Narrow it with match (e.g. {__name__="http_requests_total"}) to one metric\'s labels.',
      emptyHint:
        args.match === undefined
          ? undefined
          : `No series matched match in this time range: ${serves(call, "ListMetrics") ? "check the metric name with ListMetrics, or " : ""}widen start/end.`,
    }),
    "label name list",
  );
}
