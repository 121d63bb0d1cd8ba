import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** A minimal MCP server for bridge tests: `echo` returns its marker after a delay; `sleep` never finishes early. */
export function echoServer(aborted: string[] = []): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" }, { capabilities: { logging: {} } });
  server.registerTool(
    "echo",
    { inputSchema: { marker: z.string(), delayMs: z.number().int().min(0).default(0) } },
    async ({ marker, delayMs }) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { content: [{ type: "text", text: marker }] };
    },
  );
  server.registerTool("sleep", { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    await new Promise<void>((resolve) => {
      const stop = () => {
        aborted.push(String(extra.requestId));
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(resolve, ms);
      // A cancellation may arrive before the handler starts: the signal is then aborted already.
      if (extra.signal.aborted) stop();
      else extra.signal.addEventListener("abort", stop);
    });
    return { content: [{ type: "text", text: extra.signal.aborted ? "aborted" : "slept" }] };
  });
  return server;
}
