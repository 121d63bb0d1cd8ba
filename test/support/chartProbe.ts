// Run in a child process with a small V8 heap, bundled by esbuild (test/support/bigAnswer.ts's
// probeChart; test/integration/chartLimits.test.ts, bench figure chartLimits):
//   node --max-old-space-size=<MB> chartProbe.mjs <app module> <prometheus url> <tool arguments as JSON> <calls at once> <ms left> [pings]
// The app module exports createHandler and loadConfig (src/lambda/app.ts, src/config.ts), as built: today's as
// shipped, or an earlier revision's. Calls PlotRangeQuery that many times at once through its handler
// (each with <ms left> before its Lambda's deadline) and prints one JSON line: how each call was
// answered, how long all took, and the process's resident memory before and at its peak (its whole
// life, worker threads included: the kernel's count). With `pings`, a `ping` is due every 100 ms while
// the calls run, sent through the same handler one at a time: the longest one waited, from when it was
// due to its answer (a ping due while the event loop is held waits until it is free).
import { pathToFileURL } from "node:url";
import { httpEvent, lambdaContext } from "./events.js";

const [app = "", url = "", args = "{}", calls = "1", left = "120000", pings = ""] = process.argv.slice(2);
const { createHandler, loadConfig } = (await import(pathToFileURL(app).href)) as {
  createHandler(config: unknown): (event: unknown, context: unknown) => Promise<{ body: string }>;
  loadConfig(env: Record<string, string>): unknown;
};
const handler = createHandler(
  loadConfig({ PROMETHEUS_URL: url, PROMETHEUS_AUTH: "none", LOG_LEVEL: "SILENT", METRICS: "off" }),
);
const post = (message: unknown) =>
  handler(
    httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(message),
    }),
    lambdaContext(Number(left)),
  );
const call = (id: number, name: string, toolArgs: unknown) =>
  post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: toolArgs } });

/** How a call was answered: `image`, `tool error: …`, or `error <code>: …` (-32001: its deadline). */
function outcome(body: string): string {
  const reply = JSON.parse(body) as {
    result?: { isError?: boolean; content?: Array<{ type: string; text?: string }> };
    error?: { code: number; message: string };
  };
  if (reply.error !== undefined) return `error ${reply.error.code}: ${reply.error.message}`;
  const content = reply.result?.content ?? [];
  if (reply.result?.isError === true) return `tool error: ${content[0]?.text ?? ""}`;
  return content.map((item) => item.type).join(", ");
}

// Warm: the MCP server, its validator and the tools are built before measuring.
await call(0, "GetServerInfo", {});
const baselineRss = process.memoryUsage().rss;
const started = performance.now();
let running = true;
const pinging = (async () => {
  let slowest = 0;
  let answered = 0;
  while (pings === "pings" && running) {
    // From when it was due: a ping that arrives while the event loop is held waits until it is free.
    const due = performance.now() + 100;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await post({ jsonrpc: "2.0", id: `ping-${answered}`, method: "ping" });
    slowest = Math.max(slowest, performance.now() - due);
    answered++;
  }
  return { slowest, answered };
})();
const outcomes = await Promise.all(
  Array.from({ length: Number(calls) }, async (_, index) =>
    outcome((await call(index + 1, "PlotRangeQuery", JSON.parse(args))).body),
  ),
);
const ms = performance.now() - started;
running = false;
const { slowest: pingMs, answered: pinged } = await pinging;
const peakRss = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify({ outcomes, ms, baselineRss, peakRss, pingMs, pinged })}\n`);
process.exit(0);
