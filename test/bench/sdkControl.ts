// The SDK-alone control of the bench case sdk-floor: a Lambda handler with the MCP SDK and nothing of
// ours. It imports `McpServer` and the in-memory transport, registers one tool (named like ours, so
// the same `tools/call` reaches it) and answers each event's JSON-RPC message over the linked pair.
// It is bundled as the function is (test/support/bundle.ts, bundleAsShipped): its cold start is the
// floor the SDK sets, and its warm call what the SDK alone costs for the same request. It writes no
// log line. The tool answers with SDK_CONTROL_TEXT (read at call time), so that the bench can make its
// answer as long as ours.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface HttpEvent {
  body?: string | null;
}

const server = new McpServer({ name: "sdk-alone", version: "1.0.0" });
server.registerTool(
  "GetServerInfo",
  { description: "What this server is configured to reach." },
  async () => ({
    content: [{ type: "text", text: process.env.SDK_CONTROL_TEXT ?? "{}" }],
  }),
);

const [client, serverSide] = InMemoryTransport.createLinkedPair();
const waiting = new Map<string | number, (message: JSONRPCMessage) => void>();
client.onmessage = (message) => {
  if ("id" in message && message.id !== undefined) waiting.get(message.id)?.(message);
};
const connected = Promise.all([server.connect(serverSide), client.start()]);

export async function handler(
  event: HttpEvent,
): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  await connected;
  const message = JSON.parse(event.body ?? "") as JSONRPCMessage & { id: string | number };
  const answer = new Promise<JSONRPCMessage>((resolve) => waiting.set(message.id, resolve));
  await client.send(message);
  const body = JSON.stringify(await answer);
  waiting.delete(message.id);
  return { statusCode: 200, headers: { "content-type": "application/json" }, body };
}
