import type * as z from "zod";
import type { ChartAnswer } from "../../src/charts/chartAnswer.js";
import type { plotRangeQueryArguments } from "../arguments.js";
import { getFromWorkspace } from "../common.js";
import { expectShape, queryData } from "../results.js";
import type { ToolCall } from "../types.js";
import { Picture } from "../types.js";
import { askRange } from "./executeRangeQuery.js";

/** PlotRangeQuery's body: loaded on the tool's first call (tools/lazyRun.ts), not at a cold start. */
export async function run(args: z.output<typeof plotRangeQueryArguments>, call: ToolCall) {
  const { ChartAnswerSink, chartFacts, chartOf, drawChart, prepareDrawing } = await import(
    "../../src/charts/plot.js"
  );
  const { range, order: chosen, request, collector } = askRange(args, call);
  // The renderer loads in its worker while Prometheus answers.
  prepareDrawing();
  const answer: ChartAnswer = await getFromWorkspace(
    args,
    call,
    request,
    () => new ChartAnswerSink(collector(), range),
  );
  expectShape(queryData, answer.query.shape, "query result");
  // Nothing to draw: the answers' own result (empty, with its hint) as text, not an empty chart.
  if (answer.data.series.length === 0) return answer.query;
  const model = chartOf(answer.data, {
    title: args.title ?? args.query,
    query: args.query,
    order: chosen,
    limit: args.limit ?? undefined,
    thresholds: args.thresholds ?? undefined,
  });
  call.context.progress?.step("Drawing the chart");
  const png = await drawChart(model, call.context);
  const asked = { query: args.query, ...range, order: chosen };
  return new Picture(png, chartFacts(model, answer.data.series.length, asked, png.length, call.budget));
}
