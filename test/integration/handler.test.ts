import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AmpStack, startAmpStack } from "../support/ampStack.js";
import { EVENT_FORMATS } from "../support/events.js";
import type { FakeAmp } from "../support/fakeAmp.js";
import { JSON_HEADERS, makeHandler, postMcp } from "../support/handler.js";
import { DATASET, METRIC_NAMES, prometheusAvailable } from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";
import type { SigV4Proxy } from "../support/sigv4Proxy.js";
import { TOOL_INTERFACE } from "../support/toolInterface.js";

// The whole path through the Lambda handler: event → HTTP rules → bridge → McpServer → tool →
// AMP control plane (fake, signature-checked) → SigV4 proxy → real Prometheus.

const REGION = "us-west-2";
const WS = "ws-aaaaaaaa-0000-0000-0000-000000000001";
const WS_CREATING = "ws-bbbbbbbb-0000-0000-0000-000000000002";

type Handler = Awaited<ReturnType<typeof makeHandler>>;

const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: name,
  method: "tools/call",
  params: { name, arguments: args },
});

describe.skipIf(!prometheusAvailable())("the Lambda handler end to end, against a real Prometheus", () => {
  let proxy: SigV4Proxy;
  let amp: FakeAmp;
  let handler: Handler;
  let stack: AmpStack;

  beforeAll(async () => {
    stack = await startAmpStack(REGION, [
      { workspaceId: WS, alias: "prod", status: "ACTIVE" },
      { workspaceId: WS_CREATING, status: "CREATING" },
    ]);
    ({ proxy, amp } = stack);
    handler = makeHandler({ AWS_REGION: REGION, AMP_ENDPOINT: amp.url });
  });

  afterAll(async () => {
    await stack?.close();
  });

  beforeEach(() => {
    proxy.reset();
    amp.resetCalls();
  });

  const call = async (
    name: string,
    args: Record<string, unknown>,
    format: (typeof EVENT_FORMATS)[number] = "v2",
  ) => {
    const result = await postMcp(
      handler,
      { jsonrpc: "2.0", id: name, method: "tools/call", params: { name, arguments: args } },
      format,
    );
    expect(result.statusCode).toBe(200);
    const reply = JSON.parse(result.body);
    expect(reply.id).toBe(name);
    return reply.result as {
      content: { type: string; text: string }[];
      structuredContent?: unknown;
      isError?: boolean;
    };
  };

  it("tools/list returns the five tools in order with full input and output schemas", async () => {
    const result = await postMcp(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const tools = JSON.parse(result.body).result.tools as {
      name: string;
      description: string;
      inputSchema: { type: string; properties: Record<string, unknown>; required?: string[] };
      outputSchema: { type: string };
    }[];
    expect(tools.map((tool) => tool.name)).toStrictEqual(Object.keys(TOOL_INTERFACE));
    for (const tool of tools) {
      const expected = TOOL_INTERFACE[tool.name];
      expect(tool.inputSchema.type).toBe("object");
      expect(Object.keys(tool.inputSchema.properties).sort()).toStrictEqual(
        [...(expected?.properties ?? [])].sort(),
      );
      expect([...(tool.inputSchema.required ?? [])].sort()).toStrictEqual(
        [...(expected?.required ?? [])].sort(),
      );
      expect(tool.outputSchema.type).toBe("object");
      expect(tool.description.length).toBeGreaterThan(40);
    }
  });

  for (const format of EVENT_FORMATS) {
    it(`ExecuteQuery with a workspace_id returns Prometheus's data (${format} event)`, async () => {
      const result = await call(
        "ExecuteQuery",
        { workspace_id: WS, query: "test_temperature_celsius", time: String(DATASET.start + 60) },
        format,
      );
      expect(result.isError).toBeUndefined();
      const data = result.structuredContent as {
        resultType: string;
        result: { metric: Record<string, string>; value: [number, string] }[];
      };
      expect(data.resultType).toBe("vector");
      expect(data.result.length).toBeGreaterThan(0);
      expect(data.result.every((sample) => sample.value[0] === DATASET.start + 60)).toBe(true);
      expect(JSON.parse(result.content[0]?.text ?? "")).toStrictEqual(data);
      // Compact JSON (PYTHON_COMPAT=true keeps the Python server's 2-space layout).
      expect(result.content[0]?.text).toBe(JSON.stringify(data));
    });
  }

  it("a warm container makes one data-plane call per query and no DescribeWorkspace", async () => {
    await call("ListMetrics", { workspace_id: WS });
    proxy.reset();
    amp.resetCalls();
    const result = await call("ExecuteRangeQuery", {
      workspace_id: WS,
      query: "test_temperature_celsius",
      start: String(DATASET.start),
      end: String(DATASET.start + 300),
      step: "1m",
    });
    expect((result.structuredContent as { resultType: string }).resultType).toBe("matrix");
    expect(proxy.requests).toHaveLength(1);
    expect(amp.calls.DescribeWorkspace).toBe(0);
  });

  it("ListMetrics, GetServerInfo and GetAvailableWorkspaces answer through the handler", async () => {
    const metrics = await call("ListMetrics", { workspace_id: WS });
    expect((metrics.structuredContent as { metrics: string[] }).metrics).toStrictEqual(
      [...METRIC_NAMES].sort(),
    );
    const info = await call("GetServerInfo", { workspace_id: WS });
    expect(info.structuredContent).toStrictEqual({
      prometheus_url: proxy.workspaceUrl(WS).replace(/\/$/, ""),
      aws_region: REGION,
      aws_profile: "default",
      service_name: "aps",
      auth_mode: "sigv4",
      backend_kind: "amp",
      server_time: expect.any(String),
      result_budget_bytes: expect.any(Number),
      result_budget_tokens: 20_000,
    });
    const workspaces = await call("GetAvailableWorkspaces", {});
    expect(workspaces.structuredContent).toMatchObject({
      workspaces: [
        {
          workspace_id: WS,
          alias: "prod",
          status: "ACTIVE",
          prometheus_url: proxy.workspaceUrl(WS),
          is_configured: false,
        },
        { workspace_id: WS_CREATING, alias: "No alias", status: "CREATING", is_configured: false },
      ],
      count: 2,
      region: REGION,
      requires_user_selection: true,
      configured_workspace_id: null,
      message: "Please choose a workspace ID to use with your queries.",
    });
  });

  it("a PromQL syntax error comes back as the tool error with Prometheus's own text, after one call", async () => {
    const result = await call("ExecuteQuery", { workspace_id: WS, query: "sum(rate(x[5m])" });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^Error executing tool ExecuteQuery: .*bad_data: .*parse error/);
    expect(proxy.requests).toHaveLength(1);
  });

  it("numbers are accepted where the string parameters hold times and steps (as the Inspector CLI sends them)", async () => {
    const result = await call("ExecuteRangeQuery", {
      workspace_id: WS,
      query: "test_temperature_celsius",
      start: DATASET.start,
      end: DATASET.start + 120,
      step: 60,
    });
    expect(result.isError).toBeUndefined();
    expect(queryPoints(result.structuredContent)[0]?.points.map(([t]) => t)).toStrictEqual([
      DATASET.start,
      DATASET.start + 60,
      DATASET.start + 120,
    ]);
    const refused = await call("ExecuteQuery", { workspace_id: WS, query: "up", time: true });
    expect(refused.isError).toBe(true);
  });

  it("a query that a substring blocklist would reject goes to Prometheus unchanged", async () => {
    const result = await call("ExecuteQuery", {
      workspace_id: WS,
      query: 'probe_success{instance=~"https://.*"}',
    });
    expect(result.isError).toBeUndefined();
    expect(proxy.lastRejection).toBeUndefined();
  });

  it("an unknown workspace is a tool error that says what to do", async () => {
    const result = await call("ExecuteQuery", { workspace_id: "ws-does-not-exist", query: "up" });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(
      /^Error executing tool ExecuteQuery: .*ws-does-not-exist.*not found/i,
    );
  });

  it("neither workspace_id nor PROMETHEUS_URL: the Python server's exact guidance", async () => {
    const result = await call("ListMetrics", {});
    expect(result.content[0]?.text).toBe(
      "Error executing tool ListMetrics: Workspace ID is required when no Prometheus URL is configured. Please use GetAvailableWorkspaces to list available workspaces and choose one.",
    );
  });

  it("two handlers built with different configs in one process share nothing: settings, caches, sessions", async () => {
    const a = makeHandler({ AWS_REGION: REGION, AMP_ENDPOINT: amp.url });
    const b = makeHandler({
      AWS_REGION: REGION,
      AMP_ENDPOINT: amp.url,
      PROMETHEUS_URL: "http://127.0.0.1:1",
      PROMETHEUS_AUTH: "none",
      PYTHON_COMPAT: "true",
    });
    const info = async (handler: Handler, args: Record<string, unknown>) =>
      JSON.parse((await postMcp(handler, toolCall("GetServerInfo", args))).body).result.structuredContent;

    expect((await info(a, {})).prometheus_url).toBeNull();
    expect((await info(b, {})).prometheus_url).toBe("http://127.0.0.1:1");

    // Each handler resolves a workspace once and keeps the endpoint to itself.
    await info(a, { workspace_id: WS });
    await info(a, { workspace_id: WS });
    expect(amp.calls.DescribeWorkspace).toBe(1);
    await info(b, { workspace_id: WS });
    expect(amp.calls.DescribeWorkspace).toBe(2);

    // PYTHON_COMPAT belongs to b alone.
    const failing = toolCall("ExecuteQuery", { query: "up" });
    expect(JSON.parse((await postMcp(a, failing)).body).result.isError).toBe(true);
    expect(JSON.parse((await postMcp(b, failing)).body).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Tool execution failed: Error executing tool ExecuteQuery: /),
    });

    // A session started on a is unknown to b (each has its own memory store).
    const started = await postMcp(a, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    const sessionId = started.headers["Mcp-Session-Id"] as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const headers = { ...JSON_HEADERS, "mcp-session-id": sessionId };
    expect((await postMcp(a, { jsonrpc: "2.0", id: 2, method: "ping" }, "v2", headers)).statusCode).toBe(200);
    expect((await postMcp(b, { jsonrpc: "2.0", id: 2, method: "ping" }, "v2", headers)).statusCode).toBe(404);
  });
});
