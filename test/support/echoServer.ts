import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * A minimal MCP server for bridge tests: `echo` returns its marker after a delay; `sleep` never finishes
 * early; `count` sends `times` progress notifications (the token it saw goes to `tokens`), then answers.
 */
export function echoServer(aborted: string[] = [], tokens: unknown[] = []): McpServer {
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
  server.registerTool(
    "count",
    { inputSchema: { times: z.number().int().min(0) } },
    async ({ times }, extra) => {
      const progressToken = extra._meta?.progressToken;
      tokens.push(progressToken);
      for (let progress = 1; progressToken !== undefined && progress <= times; progress++) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress, total: times, message: `step ${progress}` },
        });
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return { content: [{ type: "text", text: `counted ${times}` }] };
    },
  );
  return server;
}
