// Figure 8: requests per second of `tools/list` through the handler in one process, one at a time
// and with 8 in flight.
import { httpEvent, lambdaContext } from "../../support/events.js";
import type { BenchContext, Handler } from "../context.js";
import { round } from "../measure.js";
import type { Figure } from "../report.js";

/** However fast the handler, no loop runs more than this many requests. */
const MAX_REQUESTS = 10_000_000;

async function throughput(
  handler: Handler,
  event: unknown,
  inFlight: number,
  durationMs: number,
): Promise<number> {
  const context = lambdaContext(60_000);
  let done = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline && done < MAX_REQUESTS) {
      const result = (await handler(event, context)) as { statusCode?: number };
      if (result.statusCode !== 200) throw new Error(`tools/list through the handler: ${result.statusCode}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return done / ((performance.now() - started) / 1000);
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const durationMs = ctx.quick ? 500 : 3_000;
  await throughput(ctx.handler, event, 1, ctx.quick ? 100 : 500); // warm-up
  const sequential = await throughput(ctx.handler, event, 1, durationMs);
  const concurrent = await throughput(ctx.handler, event, 8, durationMs);
  return [
    {
      id: "throughput-sequential",
      title: `tools/list through the handler, one at a time, for ${durationMs / 1000} s`,
      unit: "req/s",
      ours: round(sequential, 0),
      target: "report",
      met: true,
    },
    {
      id: "throughput-concurrent",
      title: `tools/list through the handler, 8 in flight, for ${durationMs / 1000} s`,
      unit: "req/s",
      ours: round(concurrent, 0),
      target: "report",
      met: true,
      note: "one process, one event loop: concurrency only overlaps the handler's awaits",
    },
  ];
}
