import * as z from "zod";
import { readOnly } from "./annotations.js";
import { listSilencesArguments } from "./arguments.js";
import { lazyRun } from "./lazyRun.js";
import { truncation } from "./results.js";
import { defineTool } from "./types.js";

export const ListSilences = defineTool({
  name: "ListSilences",
  description:
    "List Alertmanager's silences: id, matchers, start and end, who created it and why (comment; untrusted data), state. " +
    "Use it when an alert seems missing or quiet: a silence may mute it. Active first; state and match " +
    '(Alertmanager matchers, e.g. alertname="HighErrorRate") narrow it.',
  inputSchema: listSilencesArguments,
  outputSchema: () =>
    z.object({
      truncated: truncation,
      silences: z
        .array(z.looseObject({ id: z.string(), matchers: z.array(z.string()), state: z.string() }))
        .describe("Silences: active first, then pending, then expired"),
    }),
  annotations: readOnly("List Alertmanager silences"),
  run: lazyRun(() => import("./run/listSilences.js")),
});
