import type * as z from "zod";
import { QueryResultCollector } from "../../src/results/queryResult.js";
import type { Order } from "../../src/results/ranking.js";
import type { executeRangeQueryArguments } from "../arguments.js";
import { getFromWorkspace, readClock } from "../common.js";
import { answerForm } from "../params.js";
import { labelHint } from "../queryHints.js";
import { resolveTime, stepSeconds, toUnixSeconds } from "../relativeTime.js";
import { expectShape, queryData } from "../results.js";
import type { ToolCall } from "../types.js";

/** ExecuteRangeQuery's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof executeRangeQueryArguments>, call: ToolCall) {
  const asked = askRange(args, call);
  const result = await getFromWorkspace(args, call, asked.request, asked.collector);
  expectShape(queryData, result.shape, "query result");
  return result;
}

/** What a range query tool is asked (ExecuteRangeQuery's arguments, PlotRangeQuery's too). */
export interface RangeArgs {
  query: string;
  start: string;
  end: string;
  step: string;
  limit?: number | null | undefined;
  order?: Order | null | undefined;
  summary?: boolean | null | undefined;
  exact?: boolean | null | undefined;
}

/**
 * A range query's request, its bounds resolved against one reading of the clock (start=now-1h,
 * end=now spans exactly an hour), and the collector of the answers' own result for it.
 */
export function askRange(args: RangeArgs, call: ToolCall) {
  const now = readClock(call);
  const start = resolveTime("start", args.start, now);
  const end = resolveTime("end", args.end, now);
  const range = { start: toUnixSeconds(start), end: toUnixSeconds(end), step: stepSeconds(args.step) };
  const order = args.order ?? call.settings.defaultOrder ?? "unusual";
  const collector = () =>
    new QueryResultCollector(call.budget, {
      query: args.query,
      // A range Prometheus will refuse (end before start) needs no curves.
      range: range.end >= range.start && range.step > 0 && Number.isFinite(range.step) ? range : undefined,
      order,
      summary: args.summary ?? undefined,
      limit: args.limit ?? undefined,
      emptyHint: labelHint(args.query, true, call),
      form: answerForm(args.exact, call),
    });
  const request = { path: "/query_range", params: { query: args.query, start, end, step: args.step } };
  return { range, order, request, collector };
}
