// Run by test/integration/streaming.test.ts in a child process with a small V8 heap, bundled by esbuild:
//   node --max-old-space-size=<MB> streamProbe.mjs <prometheus url> <tool arguments as JSON> [bare]
// Calls ExecuteRangeQuery once through the handler (or, `bare`, only fetches the same answer and reads
// it to its end) and prints one JSON line: what came back and how much the process's memory grew.

import { loadConfig } from "../../src/config/index.js";
import { createHandler } from "../../src/lambda/app.js";
import { httpEvent, lambdaContext } from "./events.js";

const [url = "", args = "{}", mode = "handler"] = process.argv.slice(2);
const handler = createHandler(
  loadConfig({ PROMETHEUS_URL: url, PROMETHEUS_AUTH: "none", LOG_LEVEL: "SILENT", METRICS: "off" }),
);
const call = (id: number, name: string, toolArgs: unknown) =>
  handler(
    httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: toolArgs },
      }),
    }),
    lambdaContext(30_000),
  ) as Promise<{ statusCode: number; body: string }>;

// Warm: the MCP server, its validator and the tools are built before measuring.
await call(0, "GetServerInfo", {});
const baselineRss = process.memoryUsage().rss;
let peakRss = baselineRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);
const started = performance.now();
const response =
  mode === "bare" ? await readOnly(JSON.parse(args)) : await call(1, "ExecuteRangeQuery", JSON.parse(args));
const ms = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
process.stdout.write(
  `${JSON.stringify({ status: response.statusCode, body: response.body, ms, baselineRss, peakRss })}\n`,
);

/** The answer fetched and read to its end, its bytes dropped: what any reader of it pays. */
async function readOnly(toolArgs: Record<string, string>): Promise<{ statusCode: number; body: string }> {
  const { query = "", start = "", end = "", step = "" } = toolArgs;
  const answer = await fetch(`${url}/api/v1/query_range?${new URLSearchParams({ query, start, end, step })}`);
  const reader = answer.body?.getReader();
  let bytes = 0;
  for (;;) {
    const chunk = await reader?.read();
    if (!chunk || chunk.done) break;
    bytes += chunk.value.length;
  }
  return { statusCode: answer.status, body: JSON.stringify({ bytes }) };
}
