import { fileURLToPath } from "node:url";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFrontDoor } from "../support/frontDoor.js";
import { type LambdaFunction, startLambdaFunction } from "../support/lambdaFunction.js";
import type { RecordingServer } from "../support/net.js";
import {
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
  WHOLE_DATASET_RANGE,
} from "../support/prometheus.js";
import { type SlowProxy, startSlowProxy } from "../support/slowProxy.js";

// The streaming entry (src/lambda/streamHandler.ts), bundled as it ships, run by AWS's Node runtime client on
// Node 24 against a local Runtime API that takes streamed responses, behind a stand-in for a Function
// URL in RESPONSE_STREAM mode; a real MCP client calls a slow query through it and watches it.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * How long a slow query (a cold start included) is waited for: a generous bound for a loaded machine,
 * not a target. How soon its answer starts and ends is the benchmark's (streaming-first-byte and
 * streaming-result).
 */
const CALL_BOUND_MS = 180_000;
/** A test's own limit: its calls' bound, and time to connect and close. */
const TEST_BOUND_MS = CALL_BOUND_MS + 60_000;

describe.skipIf(!prometheusAvailable())("the streaming entry behind a streaming front door", () => {
  let prometheus: RunningPrometheus;
  let proxy: SlowProxy;
  let lambda: LambdaFunction;
  let frontDoor: RecordingServer;
  let restApi: RecordingServer;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    proxy = await startSlowProxy(prometheus.url, {
      headersAfterMs: 300,
      chunkBytes: 1024,
      chunkEveryMs: 120,
    });
    lambda = await startLambdaFunction(ROOT, "streamHandler", {
      PROMETHEUS_URL: proxy.url,
      PROMETHEUS_AUTH: "none",
      MAX_RESULT_TOKENS: "1000",
      // Lambda's own request limit: bodies big enough for answers over the buffered 6 MB.
      MAX_BODY_BYTES: "6291456",
      LOG_LEVEL: "WARN",
    });
    frontDoor = await startFrontDoor(lambda.api);
    // A REST API whose integration streams, the request stamped 28.5 s before it reaches the function.
    restApi = await startFrontDoor(lambda.api, { format: "v1", receivedAgoMs: 28_500 });
    // The function's cold start (the runtime client starting, the bundle loading) is waited for here,
    // bounded by the hook's limit, rather than inside a test's first call.
    expect((await fetch(`${frontDoor.url}/health`)).status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([frontDoor?.close(), restApi?.close(), proxy?.close(), prometheus?.close()]);
    await lambda?.close();
  });

  async function connect(): Promise<Client> {
    const client = new Client({ name: "streaming-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${frontDoor.url}/mcp`)), {
      timeout: CALL_BOUND_MS,
    });
    return client;
  }

  it(
    "streams a slow query's progress to the SDK client as it happens, then the result",
    async () => {
      const client = await connect();
      try {
        const told: Array<{ progress: number; message?: string }> = [];
        const result = (await client.callTool(
          { name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE },
          undefined,
          {
            onprogress: (update) => told.push(update),
            timeout: CALL_BOUND_MS,
          },
        )) as { isError?: boolean; structuredContent: { series_stats?: { rows: unknown[] } } };
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(result.structuredContent.series_stats?.rows).toHaveLength(4);
        const messages = told.map((update) => update.message ?? "");
        expect(told.length, messages.join("\n")).toBeGreaterThanOrEqual(3);
        expect(told.map((update) => update.progress)).toStrictEqual(told.map((_, i) => i + 1));
        expect(messages[0]).toMatch(/^Asked Prometheus /);
        expect(messages).toContainEqual("Prometheus is answering (HTTP 200)");
        expect(messages.at(-1)).toMatch(/^Cutting the answer to the 1,000-token budget: /);
      } finally {
        await client.close();
      }
    },
    TEST_BOUND_MS,
  );

  // The v2 SDK client, in both protocol eras: 2026-07-28 (stateless, negotiated in "auto") and the
  // 2025 handshake; its onprogress hears the same steps through the same stream.
  it.each([
    ["2026-07-28", "auto" as const],
    ["2025-11-25", "legacy" as const],
  ])(
    "streams progress to the v2 SDK client too, protocol %s",
    async (version, mode) => {
      const client = new ClientV2(
        { name: "streaming-e2e-v2", version: "1.0.0" },
        { versionNegotiation: { mode } },
      );
      await client.connect(new StreamableHTTPClientTransportV2(new URL(`${frontDoor.url}/mcp`)), {
        timeout: CALL_BOUND_MS,
      });
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        const told: Array<{ progress: number; message?: string }> = [];
        const result = (await client.callTool(
          { name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE },
          {
            onprogress: (update) => told.push(update),
            timeout: CALL_BOUND_MS,
          },
        )) as { isError?: boolean; structuredContent?: { series_stats?: { rows: unknown[] } } };
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(result.structuredContent?.series_stats?.rows).toHaveLength(4);
        const messages = told.map((update) => update.message ?? "");
        expect(told.length, messages.join("\n")).toBeGreaterThanOrEqual(3);
        expect(told.map((update) => update.progress)).toStrictEqual(told.map((_, i) => i + 1));
        expect(messages.at(-1)).toMatch(/^Cutting the answer to the 1,000-token budget: /);
      } finally {
        await client.close();
      }
    },
    TEST_BOUND_MS,
  );

  it(
    "answers with one JSON body whatever has nothing to stream: no token, or a request that is not a tool call",
    async () => {
      const post = (body: object) =>
        fetch(`${frontDoor.url}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify(body),
        });
      const call = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE },
      };
      const plain = await post(call);
      expect(plain.status).toBe(200);
      expect(plain.headers.get("content-type")).toBe("application/json");
      expect((await plain.json()) as object).toMatchObject({
        id: 2,
        result: { structuredContent: { truncated: {} } },
      });
      const list = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" });
      expect(list.headers.get("content-type")).toBe("application/json");
      expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(
        5,
      );

      const watched = await post({
        ...call,
        id: 4,
        params: { ...call.params, _meta: { progressToken: "w" } },
      });
      expect(watched.status).toBe(200);
      expect(watched.headers.get("content-type")).toBe("text/event-stream");
      const events = (await watched.text())
        .split("\n\n")
        .filter((block) => block.startsWith("event: message\n"))
        .map((block) => JSON.parse(block.slice("event: message\ndata: ".length)) as Record<string, unknown>);
      const last = events.at(-1);
      expect(events.slice(0, -1).every((event) => event.method === "notifications/progress")).toBe(true);
      expect(events.length).toBeGreaterThanOrEqual(4);
      expect(last).toMatchObject({ id: 4, result: { structuredContent: { truncated: {} } } });
    },
    TEST_BOUND_MS,
  );

  it(
    "answers what a buffered response could not carry: an echo over Lambda's 6 MB payload, whole",
    async () => {
      // 2,000,000 quotes: 4 MB of body as `\"`, 8 MB once a buffered payload escapes it again.
      const id = '"'.repeat(2_000_000);
      const answer = await fetch(`${frontDoor.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
      });
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(Buffer.byteLength(text)).toBeGreaterThan(4_000_000);
      expect(JSON.parse(text)).toStrictEqual({ jsonrpc: "2.0", id, result: {} });
    },
    TEST_BOUND_MS,
  );

  it(
    "through a REST API that streams, a request is not cut at API Gateway's buffered 29 s: it runs to its answer",
    async () => {
      const client = new Client({ name: "streaming-rest", version: "1.0.0" });
      // The stage's path is the REST API's business: the function routes on the resource path.
      await client.connect(new StreamableHTTPClientTransport(new URL(`${restApi.url}/mcp`)), {
        timeout: CALL_BOUND_MS,
      });
      try {
        const result = (await client.callTool(
          { name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE },
          undefined,
          { timeout: CALL_BOUND_MS },
        )) as {
          isError?: boolean;
          structuredContent?: { series_stats?: { rows: unknown[] } };
        };
        // Buffered, this request would have had 0.5 s left less the 500 ms margin: -32001 at once.
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(result.structuredContent?.series_stats?.rows).toHaveLength(4);
      } finally {
        await client.close();
      }
    },
    TEST_BOUND_MS,
  );

  it(
    "streams a 2026-07-28 call's steps as log notifications when it asks for them (logLevel), at and above that level",
    async () => {
      /** A 2026-07-28 tools/call of the slow query asking for logs at `logLevel`, as SSE events. */
      const logged = async (logLevel: string) => {
        const answer = await fetch(`${frontDoor.url}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "ExecuteRangeQuery",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: {
              name: "ExecuteRangeQuery",
              arguments: WHOLE_DATASET_RANGE,
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { name: "streaming-e2e", version: "1.0.0" },
                "io.modelcontextprotocol/logLevel": logLevel,
              },
            },
          }),
        });
        expect(answer.status).toBe(200);
        const type = answer.headers.get("content-type");
        const text = await answer.text();
        const events =
          type === "text/event-stream"
            ? text
                .split("\n\n")
                .filter((block) => block.startsWith("event: message\n"))
                .map(
                  (block) =>
                    JSON.parse(block.slice("event: message\ndata: ".length)) as Record<string, unknown>,
                )
            : [JSON.parse(text) as Record<string, unknown>];
        return { type, events };
      };
      const info = await logged("info");
      expect(info.type).toBe("text/event-stream");
      const logs = info.events.slice(0, -1) as Array<{ method: string; params: Record<string, unknown> }>;
      expect(logs.every((event) => event.method === "notifications/message")).toBe(true);
      expect(logs.map((event) => event.params)).toContainEqual({
        level: "info",
        logger: "prometheus",
        data: "Prometheus is answering (HTTP 200)",
      });
      // At info, no reading updates (debug); and no progress, which it did not ask for.
      expect(logs.every((event) => event.params.level === "info")).toBe(true);
      expect(info.events.at(-1)).toMatchObject({ id: 7, result: { resultType: "complete" } });

      const debug = await logged("debug");
      const levels = debug.events.slice(0, -1).map((event) => (event.params as { level: string }).level);
      expect(levels).toContain("debug");
      expect(levels).toContain("info");
      // Nothing here is a warning (no retry): asked for warnings and above, it is one JSON answer.
      const warning = await logged("warning");
      expect(warning.type).toBe("application/json");
      expect(warning.events).toHaveLength(1);
    },
    TEST_BOUND_MS,
  );
});
