import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCMessage, LoggingLevel } from "@modelcontextprotocol/sdk/types.js";

/**
 * Whether the server drops a log message of `level` (the session's log level, as `logging/setLevel` or
 * a rehydrated session set it, is above it): asks the server to send one through its public
 * `sendLoggingMessage`, and watches what it hands its transport. Nothing reaches the client.
 */
export async function ignores(server: Server | undefined, level: LoggingLevel): Promise<boolean> {
  if (!server) throw new Error("no server was built");
  const transport = server.transport;
  if (!transport) throw new Error("the server is not connected");
  const sent: JSONRPCMessage[] = [];
  const send = transport.send;
  transport.send = async (message) => {
    sent.push(message);
  };
  try {
    await server.sendLoggingMessage({ level, data: "log level probe" });
  } finally {
    transport.send = send;
  }
  return !sent.some((message) => "method" in message && message.method === "notifications/message");
}
