import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import { PLAIN_TOOL_INTERFACE } from "../support/toolInterface.js";

// The SDK's client keeps one session across a restart of `serverless offline` (a cold container),
// because the session lives in DynamoDB (dynalite here) and is rehydrated by the new process.

describe("MCP SDK client session across a serverless offline restart", () => {
  let dynamo: Dynalite;
  let offline: RunningOffline | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    dynamo = await startDynalite();
    env = {
      SESSION_TABLE: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PROMETHEUS_URL: "http://127.0.0.1:1",
      PROMETHEUS_AUTH: "none",
      LOG_LEVEL: "WARN",
    };
    offline = await startOffline(env);
  }, 120_000);

  afterAll(async () => {
    await offline?.close();
    await dynamo?.close();
  });

  it("connects with a session, survives the restart, and is gone after close", async () => {
    if (!offline) throw new Error("serverless offline did not start");
    const url = new URL(`${offline.url}/mcp`);
    const transport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: "e2e-sessions", version: "1.0.0" });
    await client.connect(transport);
    const sessionId = transport.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await client.setLoggingLevel("error");
    const before = await client.callTool({ name: "GetServerInfo", arguments: {} });
    expect(before.structuredContent).toMatchObject({ prometheus_url: "http://127.0.0.1:1" });

    const ports = offline.ports;
    await offline.close();
    offline = await startOffline(env, ports);

    const { tools } = await client.listTools();
    expect(tools).toHaveLength(Object.keys(PLAIN_TOOL_INTERFACE).length);
    const after = await client.callTool({ name: "GetServerInfo", arguments: {} });
    // The same settings after the restart; only the server's clock has moved on.
    const settled = (info: unknown) => ({ ...(info as Record<string, unknown>), server_time: "-" });
    expect(settled(after.structuredContent)).toStrictEqual(settled(before.structuredContent));
    expect(transport.sessionId).toBe(sessionId);

    await transport.terminateSession();
    await client.close();
    const gone = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId as string,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } });
  }, 180_000);
});
