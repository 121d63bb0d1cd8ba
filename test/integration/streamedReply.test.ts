import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import type { ReplySink } from "../../src/context.js";
import { normalizeEvent } from "../../src/http/event.js";
import { edgeEvent } from "../../src/http/middleware/index.js";
import type { HttpResponse } from "../../src/http/responses.js";
import { buildContainer } from "../../src/lambda/container.js";
import { mcpThroughEdge } from "../../src/lambda/mcpThroughEdge.js";
import { createStreamingHandler } from "../../src/lambda/streaming.js";
import { STREAMED_LIMITS } from "../../src/routes/ceiling.js";
import { httpEvent, lambdaContext } from "../support/events.js";
import { FailingStore } from "../support/failingStore.js";
import { type FaultServer, startFaultServer, successBody } from "../support/faultServer.js";
import { type Handler, type HttpResult, header, JSON_HEADERS } from "../support/handler.js";
import { asBuffered, installStreamingRuntime } from "../support/lambdaStreaming.js";

// The last event of a streamed answer is the route's reply as JSON text, handed to the stream: the
// same cut text a buffered answer's body carries, and a failure after the stream opened is a JSON-RPC
// error to the request rather than an HTTP error's body (src/lambda/streamedAnswer.ts).

const ENVIRONMENT = { LOG_LEVEL: "SILENT", METRICS: "off", PROMETHEUS_AUTH: "none" };

/** A POST to /mcp as a Function URL delivers it, in the session `sessionId` when given. */
function postEvent(body: unknown, sessionId?: string): Record<string, unknown> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return httpEvent("url", { method: "POST", path: "/mcp", headers, body: JSON.stringify(body) });
}

/** The JSON-RPC messages of an SSE body, in order. */
function eventsOf(answer: HttpResult): unknown[] {
  return answer.body
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as unknown);
}

describe("the reply the route hands an open stream", () => {
  it("is the text the response's body carries, cut by the ceiling on that text", async () => {
    // The streamed ceiling lowered to 4 KB (a reply over 200 MB is no test's to make): a ping whose id
    // alone is over it is replaced by the ceiling's error, in the stream as in the body.
    const container = buildContainer(
      loadConfig({ ...ENVIRONMENT, PROMETHEUS_URL: "http://127.0.0.1:1" }),
      {},
      true,
    );
    const limits = { ...STREAMED_LIMITS, responseBytes: 4_096 };
    const mcp = mcpThroughEdge({ ...container, mcpOptions: { ...container.mcpOptions, limits } });
    const replies: string[] = [];
    const failures: unknown[] = [];
    const sink: ReplySink & { notify(): void } = {
      notify: () => {},
      reply: (json) => replies.push(json),
      fail: (code, message) => failures.push({ code, message }),
    };
    const request = normalizeEvent(postEvent({ jsonrpc: "2.0", id: "x".repeat(8_000), method: "ping" }));
    if (request.kind !== "http") throw new Error("an HTTP event");
    const lambda = lambdaContext();
    const answer = await mcp(
      {
        ...edgeEvent(request),
        lambda,
        correlationId: undefined,
        trace: undefined,
        report: undefined,
        sinkFor: () => sink,
      },
      lambda,
    );
    const body = (answer.body as HttpResponse).body;
    expect(replies).toStrictEqual([body]);
    expect(failures).toStrictEqual([]);
    expect(JSON.parse(body)).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32603,
        message: expect.stringMatching(/^Response too large: this reply was \d+ bytes/),
      },
    });
  });
});

describe("a session store that fails once the stream has opened", () => {
  let prometheus: FaultServer;
  let store: FailingStore;
  let handler: Handler;

  beforeAll(async () => {
    prometheus = await startFaultServer([{ status: 200, body: successBody() }]);
    store = new FailingStore();
    installStreamingRuntime();
    const config = loadConfig({ ...ENVIRONMENT, PROMETHEUS_URL: prometheus.url });
    handler = asBuffered(createStreamingHandler(config, { sessionStore: store }) as never);
  });

  afterAll(async () => {
    await prometheus?.close();
  });

  async function post(body: unknown, sessionId?: string): Promise<HttpResult> {
    return (await handler(postEvent(body, sessionId), lambdaContext())) as HttpResult;
  }

  async function openSession(): Promise<string> {
    const started = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    const sessionId = header(started, "Mcp-Session-Id");
    expect(sessionId, started.body).toMatch(/^[0-9a-f-]{36}$/);
    return sessionId as string;
  }

  /** A logging/setLevel (the session's record is written after the payload is served) and a query. */
  const batch = (progressToken: string | undefined) => [
    { jsonrpc: "2.0", id: "level", method: "logging/setLevel", params: { level: "error" } },
    {
      jsonrpc: "2.0",
      id: "query",
      method: "tools/call",
      params: {
        name: "ExecuteQuery",
        arguments: { query: "up" },
        ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
      },
    },
  ];

  it("ends the stream with -32603 to each of the payload's requests, not an HTTP error's body", async () => {
    const sessionId = await openSession();
    store.failures = 1;
    const answer = await post(batch("p-1"), sessionId);

    expect(answer.statusCode).toBe(200);
    expect(header(answer, "Content-Type")).toBe("text/event-stream");
    const events = eventsOf(answer);
    expect(events.length).toBeGreaterThan(1);
    for (const notification of events.slice(0, -1))
      expect(notification).toMatchObject({
        method: "notifications/progress",
        params: { progressToken: "p-1" },
      });
    const unavailable = { code: -32603, message: "Session store unavailable; retry shortly" };
    expect(events.at(-1)).toStrictEqual([
      { jsonrpc: "2.0", id: "level", error: unavailable },
      { jsonrpc: "2.0", id: "query", error: unavailable },
    ]);
    expect(store.failures).toBe(0);
  });

  it("failing in a way the route does not answer, ends the stream with -32603 Internal error to each request, its cause untold", async () => {
    const sessionId = await openSession();
    store.failures = 1;
    store.failWith = new Error("the disk is on fire at /var/secret/path");
    try {
      const answer = await post(batch("p-2"), sessionId);
      expect(answer.statusCode).toBe(200);
      const internal = { code: -32603, message: "Internal error" };
      expect(eventsOf(answer).at(-1)).toStrictEqual([
        { jsonrpc: "2.0", id: "level", error: internal },
        { jsonrpc: "2.0", id: "query", error: internal },
      ]);
      expect(answer.body).not.toMatch(/disk|secret|at .*\.ts:\d+/);
    } finally {
      store.failWith = undefined;
    }
  });

  it("before any notification opened a stream, is still 503 with Retry-After", async () => {
    const sessionId = await openSession();
    store.failures = 1;
    const answer = await post(batch(undefined), sessionId);

    expect(answer.statusCode).toBe(503);
    expect(header(answer, "Retry-After")).toBe("1");
    expect(JSON.parse(answer.body)).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "Session store unavailable; retry shortly" },
    });
  });
});
