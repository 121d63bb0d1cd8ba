import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { completeInitialize, dispatch } from "../../src/mcp/bridge/dispatch.js";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import type { ActiveSession } from "../../src/sessions/manager.js";
import { testContext } from "../support/context.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { advance, useFakeClock, waitUntil, watch } from "../support/fakeClock.js";
import {
  callHttp,
  type Handler,
  type HttpResult,
  header,
  JSON_HEADERS,
  makeHandler,
  makeHandlerCapturingServers,
} from "../support/handler.js";
import { ignores } from "../support/logLevel.js";
import { closeServer, listenLoopback } from "../support/net.js";
import { sessionContainer } from "../support/sessionContainer.js";
import { PLAIN_TOOL_INTERFACE } from "../support/toolInterface.js";

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

function post(
  handler: Handler,
  body: unknown,
  sessionId?: string,
  remainingMs?: number,
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return callHttp(
    handler,
    { method: "POST", path: "/mcp", headers, body: JSON.stringify(body) },
    "v2",
    remainingMs,
  );
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
    const first = makeHandlerCapturingServers(env);
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

    const second = makeHandlerCapturingServers(env);
    const listed = await post(second.handler, { jsonrpc: "2.0", id: 3, method: "tools/list" }, id);
    expect(listed.statusCode).toBe(200);
    expect(header(listed, "Mcp-Session-Id")).toBe(id);
    expect(JSON.parse(listed.body).result.tools).toHaveLength(Object.keys(PLAIN_TOOL_INTERFACE).length);
    const info = await post(
      second.handler,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "GetServerInfo", arguments: {} } },
      id,
    );
    expect(JSON.parse(info.body).result.structuredContent.prometheus_url).toBe("http://127.0.0.1:1");
    expect(second.servers).toHaveLength(1);
    const rebuilt = second.servers[0];
    expect(rebuilt?.getClientVersion()).toStrictEqual({ name: "continuity", version: "2" });
    expect(await ignores(rebuilt, "warning")).toBe(true);
    expect(await ignores(rebuilt, "error")).toBe(false);

    expect(
      (await callHttp(second.handler, { method: "DELETE", path: "/mcp", headers: { "mcp-session-id": id } }))
        .statusCode,
    ).toBe(204);
    expect((await post(first.handler, { jsonrpc: "2.0", id: 5, method: "ping" }, id)).statusCode).toBe(404);
  });

  it("DynamoDB unreachable: 503 with Retry-After, never 404; when it is back the session continues", async () => {
    const { handler } = makeHandlerCapturingServers(env);
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
    const { sessionId } = await a.initialize(init, testContext(5_000));
    const id = sessionId as string;
    const onA = (await a.resume(id, testContext(5_000))) as ActiveSession;
    await dispatch(
      { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "alert" } },
      { context: testContext(5_000), bridge: async () => onA.bridge },
    );
    clock.now += 120_000;
    // B refreshes the expiry while A stores the log level; whichever writes second may meet a moved version and re-apply.
    await Promise.all([a.persist(onA, testContext(5_000)), b.resume(id, testContext(5_000))]);
    const record = await store().get(id, testContext(5_000));
    expect(record?.logLevel).toBe("alert");
    expect(record?.expiresAt).toBe(Math.floor(clock.now / 1000) + 600);
  });
});

describe("a DynamoDB that accepts connections and never answers", () => {
  let silent: Server;
  let endpoint: string;

  beforeAll(async () => {
    silent = createServer(() => undefined);
    endpoint = await listenLoopback(silent);
  });
  afterAll(async () => {
    await closeServer(silent);
  });

  it("with 2.5 s left, initialize and a session request wait for the store until the deadline (2 s), then are 503 with Retry-After", async () => {
    let received = 0;
    silent.on("request", () => received++);
    const handler = makeHandler({
      SESSION_TABLE: "sessions",
      DYNAMODB_ENDPOINT: endpoint,
      PROMETHEUS_URL: "http://127.0.0.1:1",
      PROMETHEUS_AUTH: "none",
    });
    for (const sessionId of [undefined, "0f8fad5b-d9cb-469f-a165-70867728950e"]) {
      // On a clock moved by hand: the store is given the time up to the request's deadline (2.5 s
      // less the 500 ms margin), neither cut short nor let run to its own 3 s cap.
      useFakeClock();
      try {
        const asked = received;
        const answer = watch(
          post(handler, sessionId ? { jsonrpc: "2.0", id: 2, method: "ping" } : initialize, sessionId, 2_500),
        );
        await waitUntil(() => received > asked, "the session store's call reaching DynamoDB");
        await advance(1_999);
        expect(answer.settled, String(sessionId)).toBe(false);
        await advance(1);
        expect(answer.settled, String(sessionId)).toBe(true);
        const result = await answer.promise;
        expect(result.statusCode, String(sessionId)).toBe(503);
        expect(header(result, "Retry-After")).toBe("1");
        expect(JSON.parse(result.body)).toMatchObject({ error: { code: -32000 } });
      } finally {
        vi.useRealTimers();
      }
    }
  });
});
