import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeInitialize, dispatch } from "../../src/bridge/dispatch.js";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import type { ActiveSession } from "../../src/sessions/manager.js";
import {
  callHttp,
  type HttpResult,
  header,
  JSON_HEADERS,
  type loadHandler,
  loadHandlerCapturingServers,
} from "../helpers/handler.js";
import { ignores } from "../helpers/logLevel.js";
import { sessionContainer } from "../helpers/sessionContainer.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";

type Handler = Awaited<ReturnType<typeof loadHandler>>;

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "continuity", version: "2" },
  },
};

function post(handler: Handler, body: unknown, sessionId?: string): Promise<HttpResult> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return callHttp(handler, { method: "POST", path: "/mcp", headers, body: JSON.stringify(body) });
}

describe("sessions in DynamoDB (dynalite) across containers", () => {
  let dynamo: Dynalite;
  let env: Record<string, string>;

  beforeAll(async () => {
    dynamo = await startDynalite();
    env = {
      SESSION_TABLE: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PROMETHEUS_URL: "http://127.0.0.1:1",
      PROMETHEUS_AUTH: "none",
    };
  });

  afterAll(async () => {
    await dynamo?.close();
  });

  it("a session started in one container continues in a fresh one: tools, tool calls and log level", async () => {
    const first = await loadHandlerCapturingServers(env);
    const started = await post(first.handler, initialize);
    const id = header(started, "Mcp-Session-Id") as string;
    expect(id).toBeDefined();
    expect(
      (await post(first.handler, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).statusCode,
    ).toBe(202);
    const levelSet = await post(
      first.handler,
      { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "error" } },
      id,
    );
    expect(JSON.parse(levelSet.body)).toStrictEqual({ jsonrpc: "2.0", id: 2, result: {} });

    const second = await loadHandlerCapturingServers(env);
    const listed = await post(second.handler, { jsonrpc: "2.0", id: 3, method: "tools/list" }, id);
    expect(listed.statusCode).toBe(200);
    expect(header(listed, "Mcp-Session-Id")).toBe(id);
    expect(JSON.parse(listed.body).result.tools).toHaveLength(5);
    const info = await post(
      second.handler,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "GetServerInfo", arguments: {} } },
      id,
    );
    expect(JSON.parse(info.body).result.structuredContent.prometheus_url).toBe("http://127.0.0.1:1");
    expect(second.servers).toHaveLength(1);
    const rebuilt = second.servers[0];
    expect(rebuilt?.server.getClientVersion()).toStrictEqual({ name: "continuity", version: "2" });
    expect(ignores(rebuilt, "warning")).toBe(true);
    expect(ignores(rebuilt, "error")).toBe(false);

    expect(
      (await callHttp(second.handler, { method: "DELETE", path: "/mcp", headers: { "mcp-session-id": id } }))
        .statusCode,
    ).toBe(204);
    expect((await post(first.handler, { jsonrpc: "2.0", id: 5, method: "ping" }, id)).statusCode).toBe(404);
  });

  it("DynamoDB unreachable: 503 with Retry-After, never 404; when it is back the session continues", async () => {
    const { handler } = await loadHandlerCapturingServers(env);
    const id = header(await post(handler, initialize), "Mcp-Session-Id") as string;
    await dynamo.cutOff();
    try {
      const during = await post(handler, { jsonrpc: "2.0", id: 1, method: "ping" }, id);
      expect(during.statusCode).toBe(503);
      expect(header(during, "Retry-After")).toBe("1");
      expect(JSON.parse(during.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
      expect(during.body).not.toMatch(/ECONNREFUSED|at |\.ts/);
      const deleting = await callHttp(handler, {
        method: "DELETE",
        path: "/mcp",
        headers: { "mcp-session-id": id },
      });
      expect(deleting.statusCode).toBe(503);
      const starting = await post(handler, initialize);
      expect(starting.statusCode).toBe(503);
      expect(header(starting, "Mcp-Session-Id")).toBeUndefined();
    } finally {
      await dynamo.restore();
    }
    const after = await post(handler, { jsonrpc: "2.0", id: 2, method: "ping" }, id);
    expect(after.statusCode).toBe(200);
    expect(JSON.parse(after.body)).toStrictEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("two containers writing one session at once: both updates are present", async () => {
    const clock = { now: Date.now() };
    const store = () =>
      new DynamoSessionStore({ tableName: dynamo.tableName, region: "us-east-1", endpoint: dynamo.endpoint });
    const manager = () => sessionContainer(store(), { now: () => clock.now }).manager;
    const [a, b] = [manager(), manager()];
    const init = completeInitialize(initialize as never);
    const { sessionId } = await a.initialize(init, undefined, Date.now() + 5_000);
    const id = sessionId as string;
    const onA = (await a.resume(id, undefined, Date.now() + 5_000)) as ActiveSession;
    await dispatch(
      { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "alert" } },
      { deadlineAt: Date.now() + 5_000, bridge: async () => onA.bridge },
    );
    clock.now += 120_000;
    // B refreshes the expiry while A stores the log level; whichever writes second may meet a moved version and re-apply.
    await Promise.all([a.persist(onA), b.resume(id, undefined, Date.now() + 5_000)]);
    const record = await store().get(id);
    expect(record?.logLevel).toBe("alert");
    expect(record?.expiresAt).toBe(Math.floor(clock.now / 1000) + 600);
  });
});
