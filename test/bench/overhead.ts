// Warm per-request cost of `tools/list` through the full handler, against the SDK's own stateless
// pattern (fresh McpServer + WebStandardStreamableHTTPServerTransport per request, JSON responses).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { handler } from "../../src/handler.js";
import { tools } from "../../tools/index.js";
import { httpEvent, lambdaContext } from "../helpers/events.js";

const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const event = httpEvent("v2", { method: "POST", path: "/mcp", headers, body });
const context = lambdaContext(60_000);

async function ours(): Promise<void> {
  const result = await (handler as unknown as (e: unknown, c: unknown) => Promise<{ statusCode: number }>)(
    event,
    context,
  );
  if (result.statusCode !== 200) throw new Error("bad status");
}

async function sdkStateless(): Promise<void> {
  const server = new McpServer({ name: "sdk", version: "1" });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
      async () => ({ content: [] }),
    );
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const request = new Request("http://localhost/mcp", { method: "POST", headers, body });
  const response = await transport.handleRequest(request);
  await response.text();
  await server.close();
}

async function measure(fn: () => Promise<void>, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  return samples.sort((a, b) => a - b);
}

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
const n = Number(process.argv[2] ?? 3000);
for (let round = 0; round < 2; round++) {
  await measure(ours, 300);
  await measure(sdkStateless, 300);
}
const a = await measure(ours, n);
const b = await measure(sdkStateless, n);
console.log(
  JSON.stringify({
    figure: "tools/list warm µs",
    ours_p50: pct(a, 0.5),
    ours_p99: pct(a, 0.99),
    sdk_p50: pct(b, 0.5),
    sdk_p99: pct(b, 0.99),
    ratio: pct(b, 0.5) / pct(a, 0.5),
  }),
);
