// Figure 1: warm per-request cost through the full handler (API Gateway event in, result out), against
// the SDK's recommended stateless pattern fed the same request: a fresh McpServer (our five tools
// registered) + WebStandardStreamableHTTPServerTransport with JSON responses per request, the
// Request built from the event.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createUpstream } from "../../../src/prometheus/upstream.js";
import { renderToolResult } from "../../../src/server.js";
import { tools } from "../../../tools/index.js";
import type { ToolCall, ToolSettings } from "../../../tools/types.js";
import { testContext } from "../../helpers/context.js";
import { httpEvent, lambdaContext } from "../../helpers/events.js";
import type { BenchContext } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function sdkStateless(ctx: BenchContext): (event: ReturnType<typeof httpEvent>) => Promise<void> {
  const settings: ToolSettings = {
    prometheusUrl: ctx.prometheusUrl,
    prometheusAuth: "sigv4",
    defaultRegion: "us-east-1",
    ampEndpoint: undefined,
    profileSupported: true,
  };
  const upstream = createUpstream(settings);
  const call = (): ToolCall => ({
    settings,
    upstream,
    context: testContext(10_000),
    maxResultBytes: 100_000,
  });
  return async (event) => {
    const server = new McpServer({ name: "sdk-stateless", version: "1" });
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
        async (args: unknown) => {
          const { maxResultBytes } = call();
          return renderToolResult(await tool.run(args as never, call()), maxResultBytes);
        },
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const request = new Request(`http://localhost${event.rawPath as string}`, {
      method: "POST",
      headers: event.headers as Record<string, string>,
      body: event.body as string,
    });
    const response = await transport.handleRequest(request);
    if (response.status !== 200) throw new Error(`SDK pattern answered ${response.status}`);
    await response.text();
    await server.close();
  };
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const iterations = ctx.quick ? 50 : 5_000;
  const warmup = ctx.quick ? 10 : 500;
  const figures: Figure[] = [];
  const cases = [
    {
      id: "warm-tools-list",
      title: "Warm `tools/list` through the handler",
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    },
    {
      id: "warm-tools-call",
      title: "Warm `tools/call` (GetServerInfo, answers at once) through the handler",
      body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "GetServerInfo", arguments: {} } },
    },
  ];
  const sdk = sdkStateless(ctx);
  for (const c of cases) {
    const event = httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers: HEADERS,
      body: JSON.stringify(c.body),
    });
    const ours = async () => {
      const result = (await ctx.handler(event, lambdaContext(60_000))) as { statusCode: number };
      if (result.statusCode !== 200) throw new Error(`handler answered ${result.statusCode}`);
    };
    const [a, b] = await interleave(ours, () => sdk(event), iterations, warmup);
    const ratio = b.p50 / a.p50;
    figures.push({
      id: c.id,
      title: c.title,
      unit: "ms",
      ours: a,
      baseline: { name: "SDK stateless pattern (fresh McpServer + WebStandard transport)", value: b },
      ratio,
      target: "ours ≥ 3× faster",
      met: ratio >= 3,
    });
  }
  return figures;
}
