import type * as z from "zod";
import { byCodePoint, stringEntries } from "../../src/results/entryList.js";
import type { listLabelValuesArguments } from "../arguments.js";
import { lookUp } from "../common.js";
import type { ToolCall } from "../types.js";
import { serves } from "../types.js";

/** ListLabelValues's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export function run(args: z.output<typeof listLabelValuesArguments>, call: ToolCall) {
  return lookUp(
    args,
    call,
    `/label/${args.label}/values`,
    () => ({
      key: "values",
      noun: `values of ${args.label}`,
      fields: { label: args.label },
      entriesOf: stringEntries,
      compare: byCodePoint,
      orderWords: "by value (code point order)",
      nextStep: () =>
        `Narrow it with match (e.g. {__name__="http_requests_total"}) or a later start, or count them with ExecuteQuery count(count by (${args.label}) ({${args.label}!=""})).`,
      emptyHint: `No series has the label ${args.label}${args.match === undefined ? "" : " among those match selects"} in this time range${serves(call, "ListLabels") ? ": check the label names with ListLabels" : ""}.`,
    }),
    "label value list",
  );
}
