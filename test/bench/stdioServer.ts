// The baseline of figure 2: our tools served the way a stdio MCP server is run on Lambda by a
// process-per-request adapter (spawn, initialize, one request, close). Bundled by the benchmark
// build to test/bench/.out/stdioServer.mjs.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import { createUpstream } from "../../src/prometheus/upstream.js";
import { tools } from "../../tools/index.js";
import type { ToolSettings } from "../../tools/types.js";
import { testContext } from "../support/context.js";
import { DEFAULT_BUDGET } from "../support/toolCall.js";

const settings: ToolSettings = {
  prometheusUrl: process.env.PROMETHEUS_URL,
  prometheusAuth: "none",
  defaultRegion: "us-east-1",
  ampEndpoint: undefined,
  profileSupported: true,
};
const upstream = createUpstream(settings);

const server = new McpServer({ name: "prometheus-mcp-stdio-baseline", version: "1.0.0" });
for (const tool of tools) {
  server.registerTool(
    tool.name,
    {
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
    },
    async (args: Record<string, unknown>) => {
      const call = { settings, upstream, context: testContext(10_000), budget: DEFAULT_BUDGET };
      return renderToolResult(await tool.run(args, call), call.budget);
    },
  );
}

const transport = new StdioServerTransport();
// The process ends when the client closes stdin (as the adapter does after its one request).
process.stdin.once("end", () => {
  void server.close().finally(() => process.exit(0));
});
await server.connect(transport);
