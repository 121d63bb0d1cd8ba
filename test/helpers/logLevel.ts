import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** Whether the server would drop a log message of `level`: the SDK keeps the session's log level private. */
export function ignores(server: McpServer | undefined, level: string): boolean {
  if (!server) throw new Error("no server was built");
  return (server.server as unknown as { isMessageIgnored(level: string): boolean }).isMessageIgnored(level);
}
