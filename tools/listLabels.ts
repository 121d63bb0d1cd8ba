import * as z from "zod";
import { byCodePoint, stringEntries } from "../src/results/entryList.js";
import { lookUp, readOnly } from "./common.js";
import { countLimit, lookupEnd, lookupStart, optionalMatch, profile, region, workspaceId } from "./params.js";
import { truncation } from "./results.js";
import { defineTool, serves } from "./types.js";

export const ListLabels = defineTool({
  name: "ListLabels",
  description:
    "List label names (job, instance, code…), sorted. Use it before filtering on a label: with match " +
    '(e.g. http_requests_total or {job="api"}) it gives the labels those series have, so a guess such as status= instead of code= is caught. ' +
    "Then ListLabelValues for a label's values.",
  inputSchema: z.object({
    workspace_id: workspaceId,
    match: optionalMatch,
    start: lookupStart,
    end: lookupEnd,
    limit: countLimit("label names, first by name,"),
    region,
    profile,
  }),
  outputSchema: () =>
    z.object({
      truncated: truncation,
      labels: z.array(z.string()).describe("Label names, sorted by code point"),
    }),
  annotations: readOnly("List label names"),
  run: (args, call) =>
    lookUp(
      args,
      call,
      "/labels",
      () => ({
        key: "labels",
        noun: "label names",
        entriesOf: stringEntries,
        compare: byCodePoint,
        orderWords: "by name (code point order)",
        nextStep: () =>
          'Narrow it with match (e.g. {__name__="http_requests_total"}) to one metric\'s labels.',
        emptyHint:
          args.match === undefined
            ? undefined
            : `No series matched match in this time range: ${serves(call, "ListMetrics") ? "check the metric name with ListMetrics, or " : ""}widen start/end.`,
      }),
      "label name list",
    ),
});
