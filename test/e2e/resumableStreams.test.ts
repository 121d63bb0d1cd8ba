import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { type FrontDoor, startFrontDoor } from "../support/frontDoor.js";
import { type LambdaFunction, startLambdaFunction } from "../support/lambdaFunction.js";
import {
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
  WHOLE_DATASET_RANGE,
} from "../support/prometheus.js";
import { type SlowProxy, startSlowProxy } from "../support/slowProxy.js";

// Resumable streams end to end: the streaming entry, bundled as it ships, run by AWS's Node runtime
// client on Node 24 in two "containers" (two runtime clients polling one local Runtime API), its
// sessions and stream events in DynamoDB (dynalite), behind a stand-in for a streaming Function URL
// that can cut an answer mid-stream. The SDK client's own reconnection (GET + Last-Event-ID) resumes.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SSE = { accept: "text/event-stream" };

describe.skipIf(!prometheusAvailable())("resumable streams: a broken stream loses nothing", () => {
  let prometheus: RunningPrometheus;
  let proxy: SlowProxy;
  let dynamo: Dynalite;
  let lambda: LambdaFunction;
  let door: FrontDoor;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    // Slow enough that the answer is still being read when the stream is cut, and for a while after.
    proxy = await startSlowProxy(prometheus.url, { headersAfterMs: 600, chunkBytes: 512, chunkEveryMs: 150 });
    dynamo = await startDynalite();
    const environment = {
      PROMETHEUS_URL: proxy.url,
      PROMETHEUS_AUTH: "none",
      MAX_RESULT_TOKENS: "1000",
      SESSION_TABLE: dynamo.tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      LOG_LEVEL: "WARN",
    };
    lambda = await startLambdaFunction(ROOT, "streamHandler", environment, 2);
    door = await startFrontDoor(lambda.api);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([door?.close(), proxy?.close(), dynamo?.close(), prometheus?.close()]);
    await lambda?.close();
  });

  /** A session's client that reconnects quickly, and every message its transport receives. */
  async function connect(): Promise<{
    client: Client;
    transport: StreamableHTTPClientTransport;
    seen: JSONRPCMessage[];
  }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${door.url}/mcp`), {
      reconnectionOptions: {
        initialReconnectionDelay: 200,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 3,
      },
    });
    const client = new Client({ name: "resumable-e2e", version: "1.0.0" });
    await client.connect(transport);
    const seen: JSONRPCMessage[] = [];
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      seen.push(message);
      deliver?.(message);
    };
    return { client, transport, seen };
  }

  /** The slow query, its progress and SSE ids as the client heard them. */
  async function watchedQuery(client: Client) {
    const told: Array<{ progress: number; message?: string }> = [];
    const ids: string[] = [];
    const result = (await client.callTool(
      { name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE },
      undefined,
      {
        onprogress: (update) => told.push(update),
        onresumptiontoken: (id) => ids.push(id),
        timeout: 60_000,
      },
    )) as { isError?: boolean; structuredContent?: { series_stats?: { rows: unknown[] } } };
    return { result, told, ids };
  }

  function expectWholeAnswer(
    { result, told, ids }: Awaited<ReturnType<typeof watchedQuery>>,
    seen: JSONRPCMessage[],
  ): void {
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent?.series_stats?.rows).toHaveLength(4);
    // Every progress event exactly once, in order: none lost at the cut, none replayed twice.
    const messages = told.map((update) => update.message ?? "");
    expect(told.length, messages.join("\n")).toBeGreaterThanOrEqual(4);
    expect(told.map((update) => update.progress)).toStrictEqual(told.map((_, i) => i + 1));
    expect(messages.at(-1)).toMatch(/^Cutting the answer to the 1,000-token budget: /);
    // The reply once; every event had an id, each new.
    expect(seen.filter((message) => "result" in message)).toHaveLength(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(told.length + 1);
  }

  it("the SDK client's own reconnection resumes a stream cut after its first events: the rest and the result, once, in order", async () => {
    const { client, transport, seen } = await connect();
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const cut = door.cutNextStream(2);
      const heard = await watchedQuery(client);
      await cut;
      expectWholeAnswer(heard, seen);
      // It came back once, with the id of the last event it had: the second.
      const resumed = door.calls.filter((call) => call.method === "GET" && call.lastEventId !== undefined);
      expect(resumed.map((call) => call.lastEventId)).toStrictEqual([heard.ids[1]]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it("an id of another session's stream, an unknown id and an unknown session are refused; a finished stream resumes empty", async () => {
    const a = await connect();
    const b = await connect();
    try {
      const heard = await watchedQuery(a.client);
      const [first] = heard.ids;
      const last = heard.ids.at(-1);
      const get = (sessionId: string | undefined, lastEventId: string) =>
        fetch(`${door.url}/mcp`, {
          headers: {
            ...SSE,
            "last-event-id": lastEventId,
            ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
          },
        });
      const foreign = await get(b.transport.sessionId, first as string);
      expect(foreign.status).toBe(400);
      expect(((await foreign.json()) as { error: { message: string } }).error.message).toMatch(
        /^Bad Request: Last-Event-ID names no event of this session's streams/,
      );
      const unknown = await get(a.transport.sessionId, `${randomUUID()}.1`);
      expect(unknown.status).toBe(400);
      const malformed = await get(a.transport.sessionId, "not-an-id");
      expect(malformed.status).toBe(400);
      const noSession = await get(randomUUID(), first as string);
      expect(noSession.status).toBe(404);
      expect((await get(undefined, first as string)).status).toBe(400);

      // Its own session resumes from the first event: the rest of the stream, the reply last.
      const own = await get(a.transport.sessionId, first as string);
      expect(own.status).toBe(200);
      expect(own.headers.get("content-type")).toBe("text/event-stream");
      const frames = (await own.text()).split("\n\n").filter((block) => block.includes("data: "));
      expect(frames.map((frame) => /^id: (\S+)$/m.exec(frame)?.[1])).toStrictEqual(heard.ids.slice(1));
      // After the reply there is nothing left: the stream ends at once, empty.
      const finished = await get(a.transport.sessionId, last as string);
      expect(finished.status).toBe(200);
      expect((await finished.text()).includes("data: ")).toBe(false);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  }, 90_000);

  it("a client's cancellation reaches the invocation running its request, in another container: the query stops", async () => {
    const { client } = await connect();
    try {
      const abandonedBefore = proxy.abandoned;
      const cancel = new AbortController();
      const call = client.callTool({ name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE }, undefined, {
        // Cancelled once Prometheus is answering: the query is under way in its invocation.
        onprogress: (update) => {
          if (update.message?.startsWith("Prometheus is answering")) cancel.abort("enough");
        },
        signal: cancel.signal,
        timeout: 60_000,
      });
      await expect(call).rejects.toThrow();
      // The SDK sent notifications/cancelled in a POST of its own, which the second runtime took (the
      // first one is busy with the query); the first looks for it and aborts its Prometheus request.
      const deadline = Date.now() + 10_000;
      while (proxy.abandoned === abandonedBefore && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(proxy.abandoned).toBe(abandonedBefore + 1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
