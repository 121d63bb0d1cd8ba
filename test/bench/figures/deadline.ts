// A request still running at its deadline: how late after that deadline its -32001 comes, of the 500 ms
// margin the deadline leaves before the Lambda's end. The tests assert on a clock moved by hand that it
// comes at the deadline and not before (test/contract/http.test.ts), and the fuzz suite that every event
// is answered; how soon, on a real clock, is this figure's. Each sample invokes the handler with a tool
// that never answers and `REMAINING_MS` left in the Lambda, from the call to its answer.
import { z } from "zod";
import { configFromEnvironment } from "../../../src/config/index.js";
import { createHandler } from "../../../src/lambda/app.js";
import { defineTool } from "../../../tools/types.js";
import { httpEvent, lambdaContext } from "../../support/events.js";
import type { BenchContext } from "../context.js";
import { stats } from "../measure.js";
import type { Figure } from "../report.js";

/** The Lambda's time left at each invocation, and the margin the deadline leaves before its end. */
const REMAINING_MS = 1_000;
const MARGIN_MS = 500;
/** Within half the margin: the answer still leaves the Lambda 250 ms to send it. */
const TARGET_MS = MARGIN_MS / 2;

const STUCK = defineTool({
  name: "Stuck",
  description: "never answers",
  annotations: {},
  inputSchema: z.object({}),
  outputSchema: z.object({}),
  run: () => new Promise<Record<string, never>>(() => undefined),
});

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const handler = createHandler(configFromEnvironment(), { tools: [STUCK] }) as unknown as (
    event: unknown,
    context: unknown,
  ) => Promise<{ body: string }>;
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "Stuck", arguments: {} },
    }),
  });
  const late: number[] = [];
  for (let run = 0; run < (ctx.quick ? 2 : 30); run++) {
    const started = performance.now();
    const answer = await handler(event, lambdaContext(REMAINING_MS));
    const ms = performance.now() - started;
    const code = (JSON.parse(answer.body) as { error?: { code?: number } }).error?.code;
    if (code !== -32001) throw new Error(`a stuck call was answered ${answer.body.slice(0, 200)}`);
    late.push(ms - (REMAINING_MS - MARGIN_MS));
  }
  const ours = stats(late);
  return [
    {
      id: "deadline-answer",
      title: `A call still running at its deadline (${REMAINING_MS} ms left in the Lambda, less the ${MARGIN_MS} ms margin): its -32001, after the deadline`,
      unit: "ms",
      ours,
      target: `< ${TARGET_MS} ms (p99): the answer leaves the Lambda half its margin`,
      met: ours.p99 < TARGET_MS,
    },
  ];
}
