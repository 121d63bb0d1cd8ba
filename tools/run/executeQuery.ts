import type * as z from "zod";
import { QueryResultCollector } from "../../src/results/queryResult.js";
import type { executeQueryArguments } from "../arguments.js";
import { getFromWorkspace, readClock } from "../common.js";
import { answerForm } from "../params.js";
import { labelHint } from "../queryHints.js";
import { resolveTime, toUnixSeconds } from "../relativeTime.js";
import { expectShape, queryData } from "../results.js";
import type { ToolCall } from "../types.js";

/** ExecuteQuery's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof executeQueryArguments>, call: ToolCall) {
  const now = readClock(call);
  const time = args.time == null ? undefined : resolveTime("time", args.time, now);
  const collector = () =>
    new QueryResultCollector(call.budget, {
      query: args.query,
      time: time === undefined ? now / 1000 : toUnixSeconds(time),
      order: args.order ?? call.settings.defaultOrder ?? "unusual",
      summary: args.summary ?? undefined,
      limit: args.limit ?? undefined,
      emptyHint: labelHint(args.query, false, call),
      form: answerForm(args.exact, call),
    });
  const result = await getFromWorkspace(
    args,
    call,
    { path: "/query", params: { query: args.query, time } },
    collector,
  );
  expectShape(queryData, result.shape, "query result");
  return result;
}
