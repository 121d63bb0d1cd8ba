import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MetricsRecorder } from "../../src/metrics/emf.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import { SessionStoreError } from "../../src/sessions/store.js";
import { lambdaContext } from "../support/events.js";
import { type Handler, JSON_HEADERS, makeHandler, postMcp } from "../support/handler.js";

// Every request writes one line: its log record with its CloudWatch metrics (EMF) merged in.

const LOCAL = { PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" };
const DIMENSION_NAMES = new Set(["service", "route", "status_class", "era", "tool"]);

interface Directive {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}
type Emf = Record<string, unknown> & { _aws: { Timestamp: number; CloudWatchMetrics: Directive[] } };

/** Runs `work`, returning each stdout write and the JSON lines written. */
async function capture(work: () => Promise<unknown>): Promise<{ writes: number; lines: Emf[] }> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation(((chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write);
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  const lines = chunks
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Emf);
  return { writes: chunks.length, lines };
}

/** The metric values of an EMF document by name, after checking it is one CloudWatch accepts. */
function metricsOf(document: Emf): Record<string, { unit: string; value: unknown; dimensions: string[][] }> {
  const found: Record<string, { unit: string; value: unknown; dimensions: string[][] }> = {};
  expect(typeof document._aws.Timestamp).toBe("number");
  for (const directive of document._aws.CloudWatchMetrics) {
    for (const set of directive.Dimensions) {
      for (const name of set) {
        // Low cardinality: only these dimensions, each a string value at the top level.
        expect(DIMENSION_NAMES.has(name), `dimension ${name}`).toBe(true);
        expect(typeof document[name], `dimension ${name}`).toBe("string");
      }
    }
    for (const { Name, Unit } of directive.Metrics) {
      const value = document[Name];
      expect(typeof value === "number" || Array.isArray(value), `value of ${Name}`).toBe(true);
      found[Name] = { unit: Unit, value, dimensions: directive.Dimensions };
    }
  }
  return found;
}

/** A session store that does not answer. */
class DownStore extends MemorySessionStore {
  override async get(): Promise<never> {
    throw new SessionStoreError("session store get failed: ServiceUnavailable");
  }
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("metrics (EMF on the request's log line)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a tool call and a failing one: one write each, counted by tool with units; the failure as an error", async () => {
    const handler = makeHandler({
      ...LOCAL,
      LOG_LEVEL: "INFO",
      METRICS: "on",
      METRICS_NAMESPACE: "Test/Mcp",
    });
    const ok = await capture(() => postMcp(handler, call(1, "GetServerInfo", {})));
    const failed = await capture(() => postMcp(handler, call(2, "ExecuteQuery", { query: "up" })));
    for (const run of [ok, failed]) {
      expect(run.writes).toBe(1);
      expect(run.lines).toHaveLength(1);
      expect(run.lines[0]).toMatchObject({
        level: "INFO",
        message: "request",
        service: "prometheus-mcp-lambda",
      });
      expect(
        run.lines[0]?._aws.CloudWatchMetrics.every((directive) => directive.Namespace === "Test/Mcp"),
      ).toBe(true);
    }
    const first = metricsOf(ok.lines[0] as Emf);
    expect(ok.lines[0]).toMatchObject({
      tool: "GetServerInfo",
      route: "mcp",
      status_class: "2xx",
      era: "legacy",
    });
    expect(first.ToolCalls).toStrictEqual({ unit: "Count", value: 1, dimensions: [["service", "tool"]] });
    expect(first.ToolErrors?.value).toBe(0);
    expect(first.ToolLatency?.unit).toBe("Milliseconds");
    expect(first.ResultBytes).toMatchObject({ unit: "Bytes", value: expect.any(Number) });
    expect(first.ResultBytes?.value as number).toBeGreaterThan(50);
    expect(first.Requests).toStrictEqual({
      unit: "Count",
      value: 1,
      dimensions: [
        ["service", "route", "status_class"],
        ["service", "era"],
      ],
    });
    expect(first.ColdStart).toMatchObject({ value: 1, dimensions: [["service"]] });
    expect(first.ServerErrors?.value).toBe(0);

    const second = metricsOf(failed.lines[0] as Emf);
    expect(failed.lines[0]).toMatchObject({ tool: "ExecuteQuery" });
    expect(second.ToolErrors?.value).toBe(1);
    // Prometheus unreachable: three attempts, two of them retries.
    expect(second.UpstreamAttempts?.value).toBe(3);
    expect(second.UpstreamRetries?.value).toBe(2);
    expect(second).not.toHaveProperty("ColdStart");
    // Never a session, a caller or a query among the values.
    expect(JSON.stringify(failed.lines[0])).not.toContain('"up"');
  });

  it("a batch calling two tools: still one write, a second EMF document for the second tool", async () => {
    const handler = makeHandler({ ...LOCAL, LOG_LEVEL: "INFO", METRICS: "on" });
    const run = await capture(() =>
      postMcp(handler, [
        call(1, "GetServerInfo", {}),
        call(2, "GetServerInfo", {}),
        call(3, "ListMetrics", { limit: "x" }),
      ]),
    );
    expect(run.writes).toBe(1);
    expect(run.lines).toHaveLength(2);
    const [line, extra] = run.lines as [Emf, Emf];
    expect(line).toMatchObject({ message: "request" });
    expect(extra).not.toHaveProperty("message");
    expect(extra).toMatchObject({ service: "prometheus-mcp-lambda" });
    const byTool = Object.fromEntries(run.lines.map((document) => [document.tool, metricsOf(document)]));
    expect(byTool.GetServerInfo?.ToolCalls?.value).toStrictEqual([1, 1]);
    expect(byTool.GetServerInfo?.ToolErrors?.value).toStrictEqual([0, 0]);
    expect(byTool.ListMetrics?.ToolErrors?.value).toBe(1);
  });

  it("below INFO the line carries the metrics alone; with metrics off, nothing is written", async () => {
    const quiet = makeHandler({ ...LOCAL, LOG_LEVEL: "WARN", METRICS: "on" });
    const metricsOnly = await capture(() => postMcp(quiet, { jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(metricsOnly.writes).toBe(1);
    expect(metricsOnly.lines[0]).not.toHaveProperty("message");
    expect(metricsOf(metricsOnly.lines[0] as Emf).Requests?.value).toBe(1);
    const off = makeHandler({ ...LOCAL, LOG_LEVEL: "WARN", METRICS: "off" });
    expect((await capture(() => postMcp(off, { jsonrpc: "2.0", id: 1, method: "tools/list" }))).writes).toBe(
      0,
    );
  });

  it("a session rehydrated on a fresh container is counted; a session store that fails is a 503 and a StoreFailure", async () => {
    const store = new MemorySessionStore();
    const env = { ...LOCAL, LOG_LEVEL: "WARN", METRICS: "on" };
    const first = makeHandler(env, { sessionStore: store });
    let sessionId = "";
    await capture(async () => {
      const initialized = await postMcp(first, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "m", version: "1" } },
      });
      sessionId = initialized.headers["Mcp-Session-Id"] as string;
    });
    const fresh = makeHandler(env, { sessionStore: store });
    const resumed = await capture(() =>
      postMcp(fresh, { jsonrpc: "2.0", id: 2, method: "tools/list" }, "v2", {
        ...JSON_HEADERS,
        "mcp-session-id": sessionId,
      }),
    );
    expect(metricsOf(resumed.lines[0] as Emf).Rehydrations?.value).toBe(1);

    const failing = makeHandler(env, { sessionStore: new DownStore() });
    const unavailable = await capture(() =>
      postMcp(failing, { jsonrpc: "2.0", id: 3, method: "tools/list" }, "v2", {
        ...JSON_HEADERS,
        "mcp-session-id": sessionId,
      }),
    );
    const counted = metricsOf(unavailable.lines[0] as Emf);
    expect(unavailable.lines[0]).toMatchObject({ status_class: "5xx" });
    expect(counted.StoreFailures?.value).toBe(1);
    expect(counted.ServerErrors?.value).toBe(1);
  });

  it("a request answered -32001 at the deadline counts as a timeout", async () => {
    const handler = makeHandler({ ...LOCAL, LOG_LEVEL: "WARN", METRICS: "on" });
    const run = await capture(() =>
      (handler as Handler)(
        {
          version: "2.0",
          rawPath: "/mcp",
          headers: JSON_HEADERS,
          requestContext: { http: { method: "POST", path: "/mcp" }, requestId: "r" },
          body: JSON.stringify(call(1, "GetServerInfo", {})),
          isBase64Encoded: false,
        },
        lambdaContext(400),
      ),
    );
    expect(metricsOf(run.lines[0] as Emf).Timeouts?.value).toBe(1);
  });
});

describe("metrics of requests the handler itself could not answer", () => {
  afterEach(() => vi.restoreAllMocks());

  it("Middy's early timeout counts as a timeout, an unexpected failure as a server error", async () => {
    const middyTimeout = new Error("[AbortError]: The operation was aborted.", {
      cause: { package: "@middy/core" },
    });
    middyTimeout.name = "TimeoutError";
    for (const [thrown, metric] of [
      [middyTimeout, "Timeouts"],
      [new Error("boom"), "ServerErrors"],
    ] as const) {
      const handler = makeHandler(
        { ...LOCAL, LOG_LEVEL: "SILENT", METRICS: "on" },
        {
          onServerCreated: () => {
            throw thrown;
          },
        },
      );
      const run = await capture(() => postMcp(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" }));
      expect(run.lines, metric).toHaveLength(1);
      expect(metricsOf(run.lines[0] as Emf)[metric]?.value, metric).toBe(1);
    }
  });
});

describe("the EMF documents are the ones Powertools Metrics builds", () => {
  it("for the same request and tool values: the same directives, dimensions and values", () => {
    const recorder = new MetricsRecorder("Test/Mcp", "svc");
    recorder.documents({
      route: "mcp",
      status: 200,
      era: "modern",
      fault: false,
      timeouts: 0,
      rehydrations: 0,
      tools: [],
    });
    const [ours] = recorder.documents({
      route: "mcp",
      status: 200,
      era: "modern",
      fault: false,
      timeouts: 0,
      rehydrations: 0,
      tools: [
        {
          tool: "ListMetrics",
          ms: 12.5,
          failed: false,
          upstreamMs: 9.25,
          resultBytes: 300,
          truncated: true,
          upstreamAttempts: 2,
        },
      ],
    });
    const powertools = (build: (metrics: Metrics) => void) => {
      const metrics = new Metrics({ namespace: "Test/Mcp", serviceName: "svc" });
      build(metrics);
      return metrics.serializeMetrics() as unknown as Emf;
    };
    const perRequest = powertools((m) =>
      m
        .addMetric("ServerErrors", MetricUnit.Count, 0)
        .addMetric("Timeouts", MetricUnit.Count, 0)
        .addMetric("StoreFailures", MetricUnit.Count, 0)
        .addMetric("Rehydrations", MetricUnit.Count, 0),
    );
    const requests = powertools((m) =>
      m
        .addDimensions({ route: "mcp", status_class: "2xx" })
        .addDimensions({ era: "modern" })
        .addMetric("Requests", MetricUnit.Count, 1),
    );
    const tool = powertools((m) =>
      m
        .addDimension("tool", "ListMetrics")
        .addMetric("ToolCalls", MetricUnit.Count, 1)
        .addMetric("ToolErrors", MetricUnit.Count, 0)
        .addMetric("ToolLatency", MetricUnit.Milliseconds, 12.5)
        .addMetric("ResultBytes", MetricUnit.Bytes, 300)
        .addMetric("Truncations", MetricUnit.Count, 1)
        .addMetric("UpstreamAttempts", MetricUnit.Count, 2)
        .addMetric("UpstreamRetries", MetricUnit.Count, 1),
    );
    const expected = [perRequest, requests, tool];
    expect(ours?._aws.CloudWatchMetrics).toStrictEqual(
      expected.flatMap((document) => document._aws.CloudWatchMetrics),
    );
    const { _aws: _ours, ...ourValues } = ours as Emf;
    const values = Object.assign({}, ...expected.map(({ _aws: _directives, ...rest }) => rest));
    expect(ourValues).toStrictEqual(values);
  });
});
