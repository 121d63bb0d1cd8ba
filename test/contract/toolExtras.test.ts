import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import { INLINE_SIZE_KEY, MAX_DECLARED_CHARS } from "../../src/results/inlineSize.js";
import { EMPTY_INSTANT_HINT, EMPTY_RANGE_HINT, QueryResultCollector } from "../../src/results/queryResult.js";
import { BUFFERED_LIMITS, STREAMED_LIMITS } from "../../src/routes/ceiling.js";
import { ENTRY, type Handler, makeHandler, postMcp } from "../support/handler.js";
import { closeServer, listenLoopback } from "../support/net.js";

// What the tools add for the model beyond the Python interface (issue 14, "help the model help
// itself"), through the whole handler: GetServerInfo's extra keys, the hint on an empty result,
// and `now-<duration>` times as they reach Prometheus.

const PYTHON_KEYS = ["prometheus_url", "aws_region", "aws_profile", "service_name"];
/** What one reply may take on this run's entry (buffered, or streamed: test/support/handler.ts). */
const REPLY_BYTES = (ENTRY === "streaming" ? STREAMED_LIMITS : BUFFERED_LIMITS).replyBytes;
const EXTRA_KEYS = [
  "auth_mode",
  "backend_kind",
  "server_time",
  "result_budget_bytes",
  "result_budget_tokens",
];
/** A query the stand-in Prometheus answers with no series. */
const MATCHES_NOTHING = "no_such_metric";

/** A stand-in Prometheus: no series for MATCHES_NOTHING, one for anything else; it records every query string. */
let prometheus: Server;
let prometheusUrl: string;
let received: URLSearchParams[] = [];

beforeAll(async () => {
  prometheus = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    received.push(url.searchParams);
    const range = url.pathname.endsWith("/query_range");
    const series = range
      ? { metric: { __name__: "up", job: "api" }, values: [[1_700_000_000, "1"]] }
      : { metric: { __name__: "up", job: "api" }, value: [1_700_000_000, "1"] };
    const empty = url.searchParams.get("query")?.startsWith(MATCHES_NOTHING) === true;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        status: "success",
        data: { resultType: range ? "matrix" : "vector", result: empty ? [] : [series] },
      }),
    );
  });
  prometheusUrl = await listenLoopback(prometheus);
});

afterAll(async () => {
  await closeServer(prometheus);
});

beforeEach(() => {
  received = [];
});

afterEach(() => vi.restoreAllMocks());

const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function callOne(handler: Handler, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const reply = JSON.parse((await postMcp(handler, toolCall(1, name, args))).body);
  return reply.result as ToolResult;
}

const localHandler = (env: Record<string, string> = {}) =>
  makeHandler({ PROMETHEUS_URL: prometheusUrl, PROMETHEUS_AUTH: "none", ...env });

/** Unix seconds as sent (`1700000000.5`) in whole milliseconds, exactly. */
function sentMs(seconds: string | null): number {
  const match = /^(\d+)(?:\.(\d{1,3}))?$/.exec(seconds ?? "");
  if (!match) throw new Error(`not Unix seconds with at most 3 decimals: ${seconds}`);
  return Number(match[1]) * 1000 + Number((match[2] ?? "").padEnd(3, "0"));
}

describe("GetServerInfo: the Python keys, then auth_mode, backend_kind, server_time and the result budget", () => {
  it("adds the five keys after the Python keys, in that order; the text is exactly structuredContent", async () => {
    const before = Date.now();
    const result = await callOne(
      localHandler({ MAX_RESULT_BYTES: "50000", MAX_RESULT_TOKENS: "12000" }),
      "GetServerInfo",
      {},
    );
    const after = Date.now();
    const info = result.structuredContent as Record<string, unknown>;
    expect(Object.keys(info)).toStrictEqual([...PYTHON_KEYS, ...EXTRA_KEYS]);
    expect(info).toMatchObject({
      prometheus_url: prometheusUrl,
      aws_region: "us-east-1",
      aws_profile: "default",
      service_name: "aps",
      auth_mode: "none",
      backend_kind: "prometheus",
      result_budget_bytes: 50_000,
      result_budget_tokens: 12_000,
    });
    const serverTime = info.server_time as string;
    expect(serverTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(serverTime)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(serverTime)).toBeLessThanOrEqual(after);
    expect(result.content).toHaveLength(1);
    expect(JSON.parse(result.content[0]?.text ?? "")).toStrictEqual(info);
  });

  it("auth_mode is sigv4 by default; the budget is MAX_RESULT_TOKENS's default and the reply's share in bytes", async () => {
    const info = (await callOne(makeHandler({ PROMETHEUS_URL: prometheusUrl }), "GetServerInfo", {}))
      .structuredContent;
    expect(info).toMatchObject({ auth_mode: "sigv4", result_budget_tokens: 20_000 });
    // What Claude Code keeps inline when declared, less than a third of what one HTTP reply may take (it
    // carries the text and the structured copy) of the 6,000,000-byte buffered response or a stream's 200 MB.
    expect(REPLY_BYTES / 3).toBeGreaterThan(MAX_DECLARED_CHARS);
    expect(info?.result_budget_bytes).toBe(MAX_DECLARED_CHARS);
  });

  it.each([
    ["by default", {}, MAX_DECLARED_CHARS],
    ["with MAX_RESULT_BYTES=50000", { MAX_RESULT_BYTES: "50000" }, 50_000],
    ["with MAX_RESULT_BYTES=500000", { MAX_RESULT_BYTES: "500000" }, 500_000],
    ["with MAX_RESULT_BYTES=500001: nothing that could be true", { MAX_RESULT_BYTES: "500001" }, undefined],
  ])(
    "tools/list declares to Claude Code the most a result's text takes, the budget's bytes, %s",
    async (_when, env: Record<string, string>, declared) => {
      const handler = localHandler(env);
      const list = JSON.parse((await postMcp(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body)
        .result as { tools: Array<{ name: string; _meta?: Record<string, unknown> }> };
      expect(list.tools.length).toBeGreaterThan(10);
      for (const tool of list.tools) expect(tool._meta?.[INLINE_SIZE_KEY]).toBe(declared);
      // The cap every text is cut to (characters are at most UTF-8 bytes): the declaration holds.
      const info = (await callOne(handler, "GetServerInfo", {})).structuredContent;
      expect(info?.result_budget_bytes).toBe(declared ?? Number(env.MAX_RESULT_BYTES));
    },
  );

  it("result_budget_bytes is the call's own budget: less when a batch of 100 shares the response", async () => {
    const batch = Array.from({ length: 100 }, (_, i) => toolCall(i + 1, "GetServerInfo", {}));
    const replies = JSON.parse((await postMcp(localHandler(), batch)).body) as {
      result: ToolResult;
    }[];
    const budgets = new Set(replies.map((reply) => reply.result.structuredContent?.result_budget_bytes));
    expect(budgets.size).toBe(1);
    const [budget] = budgets as Set<number>;
    // A hundredth of the third, or the cap on one result (a stream's share is larger).
    expect(budget).toBeGreaterThan(Math.min(MAX_DECLARED_CHARS - 1, (0.3 * REPLY_BYTES) / 100));
    expect(budget).toBeLessThanOrEqual(Math.min(MAX_DECLARED_CHARS, REPLY_BYTES / 300));
  });
});

describe("a query that matched nothing gets a hint, as a text item of its own", () => {
  it.each([
    ["ExecuteQuery", "vector", { query: MATCHES_NOTHING }, EMPTY_INSTANT_HINT],
    [
      "ExecuteRangeQuery",
      "matrix",
      { query: MATCHES_NOTHING, start: "now-1h", end: "now", step: "60s" },
      EMPTY_RANGE_HINT,
    ],
  ])(
    "%s: an empty %s is the first text item and structuredContent; the hint is the second",
    async (name, resultType, args, hint) => {
      const result = await callOne(localHandler(), name, args);
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toStrictEqual({ resultType, result: [] });
      expect(result.content.map((item) => item.type)).toStrictEqual(["text", "text"]);
      expect(JSON.parse(result.content[0]?.text ?? "")).toStrictEqual(result.structuredContent);
      expect(result.content[1]?.text).toBe(hint);
      expect(hint).toMatch(/^No series matched: check the metric name with ListMetrics/);
      expect(hint).not.toContain("\n");
    },
  );

  it.each([
    ["ExecuteQuery", { query: "up" }],
    ["ExecuteRangeQuery", { query: "up", start: "now-1h", end: "now", step: "60s" }],
  ])("%s: a result with a series has no hint", async (name, args) => {
    const result = await callOne(localHandler(), name, args);
    expect(result.structuredContent?.result).toHaveLength(1);
    expect(result.content).toHaveLength(1);
    expect(JSON.parse(result.content[0]?.text ?? "")).toStrictEqual(result.structuredContent);
  });

  it("PYTHON_COMPAT keeps the Python layout: indented JSON and no hint", async () => {
    const result = await callOne(localHandler({ PYTHON_COMPAT: "true" }), "ExecuteQuery", {
      query: MATCHES_NOTHING,
    });
    expect(result.content).toHaveLength(1);
    expect(result.content[0]?.text).toBe(JSON.stringify({ resultType: "vector", result: [] }, null, 2));
  });

  it("under PYTHON_COMPAT a 2026-07-28 request still gets the hint: only the Python layout goes without", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "ExecuteQuery",
        arguments: { query: MATCHES_NOTHING },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "ExecuteQuery",
    };
    const reply = await postMcp(localHandler({ PYTHON_COMPAT: "true" }), body, "v2", headers);
    const result = JSON.parse(reply.body).result as ToolResult;
    expect(result.content.map((item) => item.text)).toStrictEqual([
      JSON.stringify({ resultType: "vector", result: [] }),
      EMPTY_INSTANT_HINT,
    ]);
  });

  it("the hint counts against the result budget and is left out when it does not fit", async () => {
    const empty = { resultType: "vector", result: [] };
    const emptyBytes = JSON.stringify(empty).length;
    const render = async (bytes: number) => {
      const budget = { tokens: 20_000, bytes };
      const answer = new QueryResultCollector(budget, {
        query: "q",
        order: "unusual",
        form: "compact",
      }).finish(empty, emptyBytes);
      return (await renderToolResult(answer, budget)).content.map((item) => (item as { text: string }).text);
    };
    const exact = emptyBytes + Buffer.byteLength(EMPTY_INSTANT_HINT);
    expect(await render(exact)).toStrictEqual([JSON.stringify(empty), EMPTY_INSTANT_HINT]);
    expect(await render(exact - 1)).toStrictEqual([JSON.stringify(empty)]);
    expect(await render(emptyBytes)).toStrictEqual([JSON.stringify(empty)]);
  });

  it("a hint is not a truncation: the request's metrics count none", async () => {
    const handler = localHandler({ LOG_LEVEL: "INFO", METRICS: "on" });
    const chunks: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation(((chunk: unknown) => {
      chunks.push(String(chunk));
      return true;
    }) as typeof process.stdout.write);
    const result = await callOne(handler, "ExecuteQuery", { query: MATCHES_NOTHING });
    vi.restoreAllMocks();
    expect(result.content[1]?.text).toBe(EMPTY_INSTANT_HINT);
    const lines = chunks.join("").split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ tool: "ExecuteQuery", Truncations: 0 });
  });
});

describe("a query that matched nothing while filtering on labels: the hint sends the model to the labels", () => {
  const query = `${MATCHES_NOTHING}{status=~"5..", job="api"}`;

  it("names ListLabels with the metric as match, and ListLabelValues for the first label", async () => {
    const result = await callOne(localHandler(), "ExecuteQuery", { query });
    expect(result.structuredContent).toStrictEqual({ resultType: "vector", result: [] });
    expect(result.content[1]?.text).toBe(
      `No series matched. Check the labels first: ListLabels with match ${MATCHES_NOTHING} lists the labels ${MATCHES_NOTHING} has and ListLabelValues (label status, match ${MATCHES_NOTHING}) the values it takes. ListMetrics checks the metric name. An instant query sees only series with a sample in the 5 minutes before its time: for older data pass an earlier time or use ExecuteRangeQuery.`,
    );
    const range = await callOne(localHandler(), "ExecuteRangeQuery", {
      query,
      start: "now-1h",
      end: "now",
      step: "60s",
    });
    expect(range.content[1]?.text).toMatch(
      /^No series matched\. Check the labels first: .* Or widen the time range \(an earlier start\)\.$/,
    );
  });

  it("without ListLabels served (TOOLS=core), the hint is the one about metric names", async () => {
    const result = await callOne(localHandler({ TOOLS: "core" }), "ExecuteQuery", { query });
    expect(result.content[1]?.text).toBe(EMPTY_INSTANT_HINT);
  });
});

describe("TOOLS: the tools a deployment serves", () => {
  it("lists only those, in tools/list order; another is an unknown tool; the instructions name only those", async () => {
    // A plain Prometheus: the core group without GetAvailableWorkspaces, which only its own name serves.
    const handler = localHandler({ TOOLS: "ListAlerts,core" });
    const listed = JSON.parse((await postMcp(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body);
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toStrictEqual([
      "ExecuteQuery",
      "ExecuteRangeQuery",
      "ListMetrics",
      "GetServerInfo",
      "ListAlerts",
    ]);
    const reply = JSON.parse((await postMcp(handler, toolCall(2, "ListRules", {}))).body);
    expect(reply.error).toMatchObject({ code: -32602 });
    expect(reply.error.message).toMatch(
      /^Unknown tool: ListRules\. Available tools: ExecuteQuery, .*ListAlerts$/,
    );
    expect(received).toHaveLength(0);
    const initialize = {
      jsonrpc: "2.0",
      id: 3,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const { instructions } = JSON.parse((await postMcp(handler, initialize)).body).result;
    expect(instructions).toContain("ListAlerts");
    expect(instructions).not.toMatch(/ListRules|ListSilences|ListLabels|FindSeries|GetMetricMetadata/);
  });

  it("PYTHON_COMPAT serves the five; TOOLS=all there serves every tool", async () => {
    const list = async (env: Record<string, string>) =>
      JSON.parse((await postMcp(localHandler(env), { jsonrpc: "2.0", id: 1, method: "tools/list" })).body)
        .result.tools.length;
    expect(await list({ PYTHON_COMPAT: "true" })).toBe(5);
    expect(await list({ PYTHON_COMPAT: "true", TOOLS: "all" })).toBe(15);
  });
});

describe("now and now-<duration> as they reach Prometheus", () => {
  it("start=now-1h, end=now are one reading of the clock, an hour apart exactly, sent as Unix seconds", async () => {
    const before = Date.now();
    await callOne(localHandler(), "ExecuteRangeQuery", {
      query: "up",
      start: "now-1h",
      end: "now",
      step: 60,
    });
    const after = Date.now();
    const [sent] = received;
    const end = sentMs(sent?.get("end") ?? null);
    expect(end - sentMs(sent?.get("start") ?? null)).toBe(3_600_000);
    expect(end).toBeGreaterThanOrEqual(before);
    expect(end).toBeLessThanOrEqual(after);
    expect(sent?.get("step")).toBe("60");
  });

  it("absolute times reach Prometheus exactly as given, numbers as their strings", async () => {
    await callOne(localHandler(), "ExecuteQuery", { query: "up", time: 1700000000.5 });
    await callOne(localHandler(), "ExecuteQuery", { query: "up", time: "2023-11-14T22:13:20.250+01:00" });
    await callOne(localHandler(), "ExecuteRangeQuery", {
      query: "up",
      start: "1700000000",
      end: "2023-11-14T23:13:20Z",
      step: "15s",
    });
    expect(received.map((params) => params.get("time") ?? [params.get("start"), params.get("end")])).toEqual([
      "1700000000.5",
      "2023-11-14T22:13:20.250+01:00",
      ["1700000000", "2023-11-14T23:13:20Z"],
    ]);
  });

  it.each([
    ["now+1h", "time can only look back from now"],
    ["now-", "time must be now or now-<duration>"],
    ["now-5x", "time must be now or now-<duration>"],
    ["now-300000y", "time reaches back before 1970-01-01T00:00:00Z"],
    ["yesterday", "time must be an RFC 3339 timestamp"],
  ])(
    "time=%s is a tool error naming the parameter and the accepted forms; nothing is sent",
    async (time, message) => {
      const result = await callOne(localHandler(), "ExecuteQuery", { query: "up", time });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toContain(
        `Error executing tool ExecuteQuery: Invalid arguments: ${message}`,
      );
      expect(result.content[0]?.text).toMatch(/now-<duration>|now-1h/);
      expect(received).toHaveLength(0);
    },
  );
});
