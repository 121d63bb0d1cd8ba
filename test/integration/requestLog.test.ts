import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import { captureOutput } from "../support/capture.js";
import { lambdaContext } from "../support/events.js";
import { callHttp, JSON_HEADERS, makeHandler } from "../support/handler.js";
import { closeServer, listenLoopback, refusedUrl } from "../support/net.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";

// The request line says what happened to each tool call, so a success, a PromQL error, a Prometheus
// that cannot be reached and one that does not answer in time are told apart in the log; DEBUG adds
// a line per upstream attempt. No credential appears in any line.

const SECRET = "s3cr3t-pw";

/** Every line written to stdout or stderr while `run` runs, parsed; none may carry the secret. */
async function linesOf(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const output = captureOutput();
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  expect(output.text()).not.toContain(SECRET);
  return output.lines();
}

function query(promql: string) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ExecuteQuery", arguments: { query: promql, time: String(DATASET.end) } },
  });
}

/** The request line's account of its one tool call. */
function toolCallOf(lines: Record<string, unknown>[]): Record<string, unknown> {
  const requestLines = lines.filter((line) => line.message === "request");
  expect(requestLines).toHaveLength(1);
  const tools = requestLines[0]?.tools as Record<string, unknown>[];
  expect(tools).toHaveLength(1);
  return tools[0] as Record<string, unknown>;
}

describe.skipIf(!prometheusAvailable())("the request line names each tool call's outcome", () => {
  let prometheus: RunningPrometheus;
  let silent: Server;
  let silentUrl: string;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    silent = createServer(() => undefined);
    silentUrl = await listenLoopback(silent);
  }, 60_000);

  afterAll(async () => {
    await prometheus?.close();
    if (silent) await closeServer(silent);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A handler reading the Prometheus at `url`, through basic auth carrying SECRET. */
  const handlerFor = (url: string, logLevel = "INFO") =>
    makeHandler({
      PROMETHEUS_URL: url.replace("http://", `http://user:${SECRET}@`),
      PROMETHEUS_AUTH: "none",
      LOG_LEVEL: logLevel,
    });

  it("a success, a PromQL error, a refused connection and a timeout are four different lines", async () => {
    const cases = [
      { url: prometheus.url, promql: "up", remainingMs: 30_000, outcome: "ok" },
      { url: prometheus.url, promql: "sum(", remainingMs: 30_000, outcome: "rejected" },
      { url: await refusedUrl(), promql: "up", remainingMs: 30_000, outcome: "unreachable" },
      { url: silentUrl, promql: "up", remainingMs: 1_500, outcome: "timeout" },
    ];
    const seen: Record<string, unknown>[] = [];
    for (const { url, promql, remainingMs, outcome } of cases) {
      const handler = handlerFor(url);
      const lines = await linesOf(() =>
        callHttp(
          handler,
          { method: "POST", path: "/mcp", headers: JSON_HEADERS, body: query(promql) },
          "v2",
          remainingMs,
          lambdaContext(remainingMs),
        ),
      );
      const call = toolCallOf(lines);
      expect(call, outcome).toMatchObject({ tool: "ExecuteQuery", outcome });
      expect(typeof call.upstream_ms).toBe("number");
      expect(call.attempts as number).toBeGreaterThanOrEqual(1);
      if (outcome === "ok") expect(call.bytes as number).toBeGreaterThan(0);
      // At INFO the query itself is never logged.
      expect(JSON.stringify(lines)).not.toContain(promql === "up" ? '"query":"up"' : "sum(");
      seen.push(call);
    }
    // A refused connection is retried (3 attempts); a PromQL error is not.
    expect(seen[1]?.attempts).toBe(1);
    expect(seen[2]?.attempts).toBe(3);
    expect(new Set(seen.map((call) => call.outcome)).size).toBe(4);
  }, 60_000);

  it("DEBUG adds the tool's arguments and one line per upstream attempt, without credentials", async () => {
    const handler = handlerFor(await refusedUrl(), "DEBUG");
    const lines = await linesOf(() =>
      callHttp(handler, { method: "POST", path: "/mcp", headers: JSON_HEADERS, body: query("up") }),
    );
    const debug = lines.filter((line) => line.level === "DEBUG");
    expect(debug.find((line) => line.message === "tool called")).toMatchObject({
      tool: "ExecuteQuery",
      arguments: { query: "up" },
    });
    const attempts = debug.filter((line) => line.message === "Prometheus attempt failed");
    expect(attempts).toHaveLength(3);
    for (const attempt of attempts) {
      expect(String(attempt.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/query\?/);
      expect(attempt.error).toMatch(/ECONNREFUSED/);
    }
    expect(toolCallOf(lines)).toMatchObject({ outcome: "unreachable", attempts: 3 });

    const answered = await linesOf(() =>
      callHttp(handlerFor(prometheus.url, "DEBUG"), {
        method: "POST",
        path: "/mcp",
        headers: JSON_HEADERS,
        body: query("up"),
      }),
    );
    const attempt = answered.find((line) => line.message === "Prometheus answered");
    expect(attempt).toMatchObject({ level: "DEBUG", status: 200 });
    expect(String(attempt?.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/query\?/);
  }, 60_000);
});

describe("DEBUG names each step of a session", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("created, then on another container loaded cold and rehydrated, and its log level written", async () => {
    const store = new MemorySessionStore();
    const env = { LOG_LEVEL: "DEBUG", PROMETHEUS_URL: "http://127.0.0.1:9", PROMETHEUS_AUTH: "none" };
    const post = (handler: ReturnType<typeof makeHandler>, body: unknown, sessionId?: string) =>
      callHttp(handler, {
        method: "POST",
        path: "/mcp",
        headers: { ...JSON_HEADERS, ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }) },
        body: JSON.stringify(body),
      });
    let sessionId = "";
    const created = await linesOf(async () => {
      const result = await post(makeHandler(env, { sessionStore: store }), {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      sessionId = result.headers["Mcp-Session-Id"] ?? "";
    });
    expect(sessionId).not.toBe("");
    const prefix = sessionId.slice(0, 8);
    expect(created.find((line) => line.message === "session created")).toMatchObject({
      level: "DEBUG",
      session_id_prefix: prefix,
    });

    const resumed = await linesOf(() =>
      post(
        makeHandler(env, { sessionStore: store }),
        { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "error" } },
        sessionId,
      ),
    );
    const messages = resumed.filter((line) => line.level === "DEBUG").map((line) => line.message);
    expect(messages).toEqual(["session loaded", "session rehydrated", "session written"]);
    expect(resumed.find((line) => line.message === "session loaded")).toMatchObject({ warm: false });
    // The session id itself (a bearer of the session) is never logged whole.
    expect(JSON.stringify(resumed)).not.toContain(sessionId);
  });
});

describe("local logs (npm start, invoke local)", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ["IS_OFFLINE", "npm start"],
    ["IS_LOCAL", "invoke local"],
  ])("under %s (%s): no metrics document, and each request its own correlation id", async (marker) => {
    // The events carry one request id, as serverless offline's all do ("offlineContext_resourceId").
    const handler = makeHandler({ [marker]: "true", LOG_LEVEL: "INFO", METRICS: "" });
    const lines = await linesOf(async () => {
      for (const id of ["local-invocation-1", "local-invocation-2"]) {
        await callHttp(
          handler,
          {
            method: "POST",
            path: "/mcp",
            headers: JSON_HEADERS,
            body: query("up"),
            requestId: "offlineContext_resourceId",
          },
          "v2",
          30_000,
          { ...lambdaContext(), awsRequestId: id },
        );
      }
    });
    const requests = lines.filter((line) => line.message === "request");
    expect(requests.map((line) => line.correlation_id)).toStrictEqual([
      "local-invocation-1",
      "local-invocation-2",
    ]);
    for (const line of lines) expect(line).not.toHaveProperty("_aws");
    // Deployed, the API Gateway request id stays the correlation id, and the metrics ride on the line.
    const deployed = makeHandler({ AWS_LAMBDA_FUNCTION_NAME: "fn", LOG_LEVEL: "INFO", METRICS: "" });
    const deployedLines = await linesOf(() =>
      callHttp(
        deployed,
        {
          method: "POST",
          path: "/mcp",
          headers: JSON_HEADERS,
          body: query("up"),
          requestId: "apigw-request-1",
        },
        "v2",
        30_000,
        { ...lambdaContext(), awsRequestId: "lambda-1" },
      ),
    );
    const deployedRequest = deployedLines.find((line) => line.message === "request");
    expect(deployedRequest?.correlation_id).toBe("apigw-request-1");
    expect(deployedRequest).toHaveProperty("_aws");
  });
});
