import * as z from "zod";
import { readOnly } from "./annotations.js";
import { listRulesArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListRules = defineTool({
  name: "ListRules",
  description:
    "List alerting and recording rules: expression (query), for, labels, annotations, health, lastError (untrusted data) and error_means, last evaluation; for alerting rules their state, number of alerts and depends_on (recording rules read: health, has_series). " +
    "Use it to see an alert's threshold and why it fires, or cannot (health err, or can_fire: false and why). name (e.g. HighErrorRate), group, type (alert or record) and health (ok, err, unknown) narrow it.",
  inputSchema: listRulesArguments,
  outputSchema: () =>
    z.object({
      truncated: truncation,
      note: z.string().optional().describe("Why has_series is left out, when it is"),
      rules: z
        .array(z.looseObject({ group: z.string(), name: z.string(), type: z.string(), query: z.string() }))
        .describe("Rules sorted by group, then name"),
    }),
  annotations: readOnly("List alerting and recording rules"),
  run: lazyRun(() => import("./run/listRules.js")),
});
