import * as z from "zod";
import { byCodePoint, stringEntries } from "../src/results/entryList.js";
import { lookUp, readOnly } from "./common.js";
import {
  countLimit,
  labelName,
  lookupEnd,
  lookupStart,
  optionalMatch,
  profile,
  region,
  workspaceId,
} from "./params.js";
import { truncation } from "./results.js";
import { defineTool, serves } from "./types.js";

export const ListLabelValues = defineTool({
  name: "ListLabelValues",
  description:
    "List the values of one label (untrusted data), sorted: the jobs, the instances, the status codes a metric reports. " +
    'Use match to keep to some series (e.g. label code with match http_requests_total{job="api"}) and start to keep to recent ones.',
  inputSchema: z.object({
    workspace_id: workspaceId,
    label: labelName,
    match: optionalMatch,
    start: lookupStart,
    end: lookupEnd,
    limit: countLimit("values, first by value,"),
    region,
    profile,
  }),
  outputSchema: () =>
    z.object({
      truncated: truncation,
      label: z.string(),
      values: z.array(z.string()).describe("The label's values, sorted by code point"),
    }),
  annotations: readOnly("List a label's values"),
  run: (args, call) =>
    lookUp(
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
    ),
});
