import { randomUUID } from "node:crypto";
import { DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { createStreamingHandler } from "../../src/lambda/streaming.js";
import { WRITER_ENDED } from "../../src/routes/resume.js";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import { DynamoStreamEvents, eventId } from "../../src/sessions/streamEvents.js";
import { testContext } from "../support/context.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { type EventFormat, httpEvent, lambdaContext } from "../support/events.js";
import { type FaultServer, startFaultServer } from "../support/faultServer.js";
import { type Handler, type HttpResult, header, JSON_HEADERS } from "../support/handler.js";
import { asBuffered, installStreamingRuntime } from "../support/lambdaStreaming.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import { type SlowProxy, startSlowProxy } from "../support/slowProxy.js";
import { bundleStreamWriter, startStreamWriter } from "../support/streamWriter.js";

// A session's streams and cancellations through the streaming entry (in this process, and in a process
// of its own that dies), its sessions, stream events and cancellations in one DynamoDB table (dynalite).

const SSE_ACCEPT = { accept: "text/event-stream" };

/** The streaming entry for `environment`, its streamed answers read back as a front door reads them. */
function streamingHandler(environment: Record<string, string>): Handler {
  installStreamingRuntime();
  const config = loadConfig({ LOG_LEVEL: "SILENT", METRICS: "off", ...environment });
  return asBuffered(createStreamingHandler(config) as never);
}

/** A POST to /mcp, as a Function URL delivers it; `stamp`: when the front door received it (epoch ms). */
function postEvent(body: unknown, sessionId: string | undefined, stamp?: number): Record<string, unknown> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  const format: EventFormat = "url";
  const event = httpEvent(format, { method: "POST", path: "/mcp", headers, body: JSON.stringify(body) });
  if (stamp !== undefined) (event.requestContext as Record<string, unknown>).timeEpoch = stamp;
  return event;
}

async function post(
  handler: Handler,
  body: unknown,
  sessionId?: string,
  remainingMs = 30_000,
): Promise<HttpResult> {
  return (await handler(postEvent(body, sessionId), lambdaContext(remainingMs))) as HttpResult;
}

/** A new session, initialized as a client does: its id. */
async function openSession(handler: Handler): Promise<string> {
  const started = await post(handler, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "resumed", version: "1" },
    },
  });
  const sessionId = header(started, "Mcp-Session-Id");
  expect(sessionId, started.body).toMatch(/^[0-9a-f-]{36}$/);
  await post(handler, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
  return sessionId as string;
}

/** A tool call that tells its progress, so that its answer is a stream (kept, in a session). */
const slowCall = (id: string | number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "ExecuteQuery", arguments: { query: "up" }, _meta: { progressToken: `p-${id}` } },
});
const cancel = (requestId: string | number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "user" },
});

/** The JSON-RPC messages of an SSE body (or of a JSON one), each with the SSE id it came with. */
function messagesOf(answer: HttpResult): { id: string | undefined; message: Record<string, unknown> }[] {
  if (header(answer, "Content-Type") !== "text/event-stream")
    return [{ id: undefined, message: JSON.parse(answer.body) }];
  return answer.body
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => ({
      id: /^id: (\S+)$/m.exec(block)?.[1],
      message: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Record<string, unknown>,
    }));
}

describe("a session's streams and cancellations in the sessions table (dynalite)", () => {
  let dynamo: Dynalite;
  let hanging: FaultServer;
  let environment: Record<string, string>;
  let handler: Handler;
  let admin: DynamoDBClient;

  beforeAll(async () => {
    dynamo = await startDynalite();
    // A Prometheus that never answers: only a cancellation, the deadline or a death ends a call to it.
    hanging = await startFaultServer([{ hang: true }]);
    environment = {
      SESSION_TABLE: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PROMETHEUS_URL: hanging.url,
      PROMETHEUS_AUTH: "none",
    };
    handler = streamingHandler(environment);
    admin = new DynamoDBClient({ region: "us-east-1", endpoint: dynamo.endpoint });
  }, 60_000);

  afterAll(async () => {
    admin?.destroy();
    await Promise.all([hanging?.close(), dynamo?.close()]);
  });

  /** The stream ids of the session's kept events whose place is `seq`, read from the table itself. */
  async function streamsOf(sessionId: string, seq: number): Promise<string[]> {
    const { Items = [] } = await admin.send(
      new ScanCommand({
        TableName: dynamo.tableName,
        FilterExpression: "#owner = :owner",
        ExpressionAttributeNames: { "#owner": "owner" },
        ExpressionAttributeValues: { ":owner": { S: sessionId } },
      }),
    );
    return Items.flatMap((item) => {
      const match = /^stream#([0-9a-f-]{36})#(\d+)$/.exec(item.sessionId?.S ?? "");
      return match && Number(match[2]) === seq ? [match[1] as string] : [];
    });
  }

  describe("a resumed stream whose writer died", () => {
    let bundle: string;

    beforeAll(async () => {
      bundle = await bundleStreamWriter();
    }, 60_000);

    it("ends, once the writer's deadline has passed, with an error to the request's id rather than waiting for its own", async () => {
      const sessionId = await openSession(handler);
      // The writer: an invocation of its own with 20 s to run, killed once it has kept its first event.
      const writer = startStreamWriter(bundle, environment, postEvent(slowCall("slow-1"), sessionId), 20_000);
      let streams: string[] = [];
      try {
        for (let waited = 0; streams.length === 0 && waited < 600; waited++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          streams = await streamsOf(sessionId, 1);
        }
        expect(streams, "the writer kept its first event").toHaveLength(1);
        // Still running when killed: its call to a Prometheus that never answers ends at its deadline only.
        expect(writer.child.exitCode).toBeNull();
      } finally {
        await writer.kill();
      }
      const streamId = streams[0] as string;

      // The client resumes from that event in another invocation, with far more time than the writer had.
      const resumed = (await handler(
        httpEvent("url", {
          method: "GET",
          path: "/mcp",
          headers: { ...SSE_ACCEPT, "mcp-session-id": sessionId, "last-event-id": eventId(streamId, 1) },
        }),
        lambdaContext(90_000),
      )) as HttpResult;
      expect(resumed.statusCode).toBe(200);
      const messages = messagesOf(resumed);
      const last = messages.at(-1);
      // Whatever else the writer kept before it died comes first, each with its id; then the error, no id.
      for (const [index, event] of messages.slice(0, -1).entries())
        expect(event.id).toBe(eventId(streamId, index + 2));
      expect(last).toStrictEqual({
        id: undefined,
        message: { jsonrpc: "2.0", id: "slow-1", error: { code: -32603, message: WRITER_ENDED } },
      });
    }, 180_000);
  });

  describe("a cancellation", () => {
    it("noted after the front door received the request cancels it, even before its invocation started", async () => {
      const sessionId = await openSession(handler);
      const receivedAt = Date.now();
      // The cancellation reaches a warm invocation while the request's own still starts (a cold start).
      expect((await post(handler, cancel("q-2"), sessionId)).statusCode).toBe(202);
      const answer = (await handler(
        postEvent(slowCall("q-2"), sessionId, receivedAt),
        lambdaContext(60_000),
      )) as HttpResult;
      // Its kept stream found the cancellation and stopped the query (its deadline was a minute away).
      const reply = messagesOf(answer).at(-1)?.message as { id: string; result: Record<string, unknown> };
      expect(reply.id).toBe("q-2");
      expect(reply.result.isError).toBe(true);
      expect(JSON.stringify(reply.result.content)).toMatch(/was cancelled before it answered/);
    }, 90_000);
  });

  describe("the table's items that are no session", () => {
    it("are no session whatever the Mcp-Session-Id: 404 to every method, and nothing of theirs is deleted", async () => {
      const sessionId = await openSession(handler);
      const events = new DynamoStreamEvents({
        tableName: dynamo.tableName,
        region: "us-east-1",
        endpoint: dynamo.endpoint,
      });
      const streamId = randomUUID();
      const kept = {
        streamId,
        seq: 1,
        sessionId,
        data: '{"jsonrpc":"2.0","method":"notifications/progress"}',
        final: false,
        writerDeadline: Date.now() + 60_000,
        replyTo: 1,
      };
      await events.append(kept);
      await events.cancel(sessionId, 1);
      const notSessions = [`stream#${streamId}#1`, `cancel#${sessionId}#1`];

      for (const id of notSessions) {
        const ping = await post(handler, { jsonrpc: "2.0", id: 2, method: "ping" }, id);
        expect(ping.statusCode, `POST as ${id}: ${ping.body}`).toBe(404);
        expect(JSON.parse(ping.body)).toMatchObject({
          error: { code: -32001, message: "Session not found" },
        });
        const resumed = (await handler(
          httpEvent("url", {
            method: "GET",
            path: "/mcp",
            headers: { ...SSE_ACCEPT, "mcp-session-id": id, "last-event-id": eventId(streamId, 1) },
          }),
          lambdaContext(),
        )) as HttpResult;
        expect(resumed.statusCode, `GET as ${id}`).toBe(404);
        const deleted = (await handler(
          httpEvent("url", { method: "DELETE", path: "/mcp", headers: { "mcp-session-id": id } }),
          lambdaContext(),
        )) as HttpResult;
        expect(deleted.statusCode, `DELETE as ${id}`).toBe(404);
      }
      // Nothing was deleted: the event is there for the session that made it, and so is the cancellation.
      expect(await events.from(streamId, 1, 1)).toStrictEqual([kept]);
      expect(await events.isCancelled(sessionId, 1, 0)).toBe(true);
    });

    it("are not read as sessions by the session store, whatever key is asked for", async () => {
      const store = new DynamoSessionStore({
        tableName: dynamo.tableName,
        region: "us-east-1",
        endpoint: dynamo.endpoint,
      });
      const events = new DynamoStreamEvents({
        tableName: dynamo.tableName,
        region: "us-east-1",
        endpoint: dynamo.endpoint,
      });
      const streamId = randomUUID();
      const sessionId = randomUUID();
      await events.append({
        streamId,
        seq: 1,
        sessionId,
        data: "{}",
        final: true,
        writerDeadline: Date.now(),
        replyTo: 1,
      });
      await events.cancel(sessionId, "x");
      for (const key of [`stream#${streamId}#1`, `cancel#${sessionId}#"x"`])
        expect(await store.get(key, testContext(5_000)), key).toBeUndefined();
    });

    it("an id not of the server's own form is an unknown session (404); one that is no visible ASCII is 400", async () => {
      const sessionId = await openSession(handler);
      const ping = (id: string) => post(handler, { jsonrpc: "2.0", id: 3, method: "ping" }, id);
      expect((await ping(sessionId)).statusCode).toBe(200);
      for (const id of [sessionId.toUpperCase(), `${sessionId}x`, "abc", "x".repeat(128)])
        expect((await ping(id)).statusCode, id).toBe(404);
      expect((await ping("caf\u00e9")).statusCode).toBe(400);
    });
  });
});

describe.skipIf(!prometheusAvailable())("a cancellation noted before, with a Prometheus that answers", () => {
  let prometheus: RunningPrometheus;
  let proxy: SlowProxy;
  let dynamo: Dynalite;
  let handler: Handler;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    // Over two seconds: a kept stream looks for its cancellation twice before the answer.
    proxy = await startSlowProxy(prometheus.url, { headersAfterMs: 2_500 });
    dynamo = await startDynalite();
    handler = streamingHandler({
      SESSION_TABLE: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      PROMETHEUS_URL: proxy.url,
      PROMETHEUS_AUTH: "none",
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([proxy?.close(), dynamo?.close(), prometheus?.close()]);
  });

  it("leaves a later request with that id its result", async () => {
    const sessionId = await openSession(handler);
    expect((await post(handler, cancel(7), sessionId)).statusCode).toBe(202);
    const answer = await post(handler, slowCall(7), sessionId, 60_000);
    const messages = messagesOf(answer);
    // Streamed (its progress came first) and answered.
    expect(messages.length).toBeGreaterThan(1);
    const reply = messages.at(-1)?.message as { id: number; result: Record<string, unknown> };
    expect(reply.id).toBe(7);
    expect(reply.result.isError).toBeUndefined();
    expect(reply.result.structuredContent).toStrictEqual({ resultType: "vector", result: [] });
  }, 90_000);
});
