import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AmpNotFoundError } from "../../src/prometheus/ampErrors.js";
import { ControlPlane } from "../../src/prometheus/controlPlane.js";
import { Credentials } from "../../src/prometheus/credentials.js";
import { DataPlane } from "../../src/prometheus/dataPlane.js";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import type { SessionRecord } from "../../src/sessions/store.js";
import type { Trace, Tracing } from "../../src/tracing/trace.js";
import { testContext } from "../support/context.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { lambdaContext } from "../support/events.js";
import { startFakeAmp } from "../support/fakeAmp.js";
import { errorBody, startFaultServer, successBody } from "../support/faultServer.js";
import { makeHandler, postMcp } from "../support/handler.js";
import { RecordingTrace } from "../support/recordingTrace.js";
import { wholeAnswer } from "../support/wholeAnswer.js";

// What each layer records on the request's trace, seen through a recording Trace in this process (the
// X-Ray SDK itself, in a child process, is test/integration/tracing.test.ts).

const VECTOR = { resultType: "vector", result: [] };

/** A tracing whose every invocation is traced, its subsegments kept in `invocations`. */
function recordingTracing(): Tracing & { invocations: RecordingTrace[] } {
  const invocations: RecordingTrace[] = [];
  return {
    invocations,
    invocation(): Trace {
      const trace = new RecordingTrace("## handler");
      invocations.push(trace);
      return trace;
    },
  };
}

function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

describe("through the handler", () => {
  it("a batch of two tool calls: each its own subsegment, each Prometheus call inside its tool's", async () => {
    const prometheus = await startFaultServer([{ status: 200, body: successBody(VECTOR) }]);
    try {
      const tracing = recordingTracing();
      const handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" }, { tracing });
      const answer = await postMcp(handler, [
        toolCall(1, "ExecuteQuery", { query: "up" }),
        toolCall(2, "ListMetrics", {}),
      ]);
      expect(answer.statusCode).toBe(200);
      const [request] = tracing.invocations as [RecordingTrace];
      expect(request).toMatchObject({ annotations: { route: "mcp", status: 200, era: "legacy" }, closes: 1 });
      expect(request.children.map((child) => child.name).sort()).toEqual([
        "Tool ExecuteQuery",
        "Tool ListMetrics",
      ]);
      const tool = (name: string) => request.children.find((child) => child.name === `Tool ${name}`);
      expect(tool("ExecuteQuery")?.children.map((child) => child.name)).toEqual(["Prometheus /query"]);
      expect(tool("ListMetrics")?.children.map((child) => child.name)).toEqual([
        "Prometheus /label/__name__/values",
      ]);
      for (const span of request.all()) expect(span.closes, span.name).toBe(1);
      expect(tool("ExecuteQuery")?.annotations).toEqual({ tool: "ExecuteQuery", failed: false });
    } finally {
      await prometheus.close();
    }
  });

  it("a direct invocation and a request that is not MCP are traced as well; a tools/list opens nothing more", async () => {
    const tracing = recordingTracing();
    const handler = makeHandler({}, { tracing });
    await handler({ jsonrpc: "2.0", id: 1, method: "tools/list" }, lambdaContext());
    await postMcp(handler, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    const [direct, http] = tracing.invocations as [RecordingTrace, RecordingTrace];
    expect(direct.annotations).toEqual({ route: "direct", status: 200, era: "legacy" });
    expect(http.annotations).toEqual({ route: "mcp", status: 200, era: "legacy" });
    for (const trace of tracing.invocations) {
      expect(trace.children).toEqual([]);
      expect(trace.closes).toBe(1);
    }
  });

  it("TRACING=off and no tracing given: nothing is traced (the requests carry no trace)", async () => {
    const prometheus = await startFaultServer([{ status: 200, body: successBody(VECTOR) }]);
    try {
      const handler = makeHandler({
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        TRACING: "off",
      });
      const answer = await postMcp(handler, toolCall(1, "ExecuteQuery", { query: "up" }));
      expect(JSON.parse(answer.body).result.isError ?? false).toBe(false);
    } finally {
      await prometheus.close();
    }
  });
});

describe("the Prometheus call (DataPlane.get)", () => {
  const call = (trace: Trace) => ({
    region: "us-east-1",
    profile: undefined,
    context: testContext(10_000, { trace }),
  });

  it("one subsegment across its retries: the attempts and the last status", async () => {
    const server = await startFaultServer([{ status: 503 }, { status: 200, body: successBody(VECTOR) }]);
    try {
      const trace = new RecordingTrace();
      await new DataPlane(new Credentials(), { mode: "none", headers: {} }).get(
        `${server.url}/api/v1`,
        "/query",
        { query: "up" },
        call(trace),
        wholeAnswer,
      );
      const [span] = trace.children as [RecordingTrace];
      expect(trace.children).toHaveLength(1);
      expect(span).toMatchObject({
        name: "Prometheus /query",
        annotations: { attempts: 2, status: 200 },
        metadata: { target: `${server.url}/api/v1/query` },
        failures: [],
        flags: [],
        closes: 1,
      });
    } finally {
      await server.close();
    }
  });

  it("one subsegment when an optional parameter is refused and the call made again without it", async () => {
    const server = await startFaultServer([
      { status: 400, body: errorBody("bad_data", 'unknown parameter "limit"') },
      { status: 200, body: successBody(["up"]) },
    ]);
    try {
      const trace = new RecordingTrace();
      await new DataPlane(new Credentials(), { mode: "none", headers: {} }).get(
        server.url,
        "/label/__name__/values",
        { limit: "10" },
        { ...call(trace), optionalParams: ["limit"] },
        wholeAnswer,
      );
      expect(trace.children).toHaveLength(1);
      expect(trace.children[0]).toMatchObject({ annotations: { attempts: 2, status: 200 }, closes: 1 });
    } finally {
      await server.close();
    }
  });

  it("a URL with user:password@: one subsegment, whose target names neither", async () => {
    const server = await startFaultServer([{ status: 200, body: successBody(VECTOR) }]);
    try {
      const trace = new RecordingTrace();
      const withCredentials = `${server.url.replace("http://", "http://reader:s3cret@")}/api/v1`;
      await new DataPlane(new Credentials(), { mode: "none", headers: {} }).get(
        withCredentials,
        "/query",
        { query: "up" },
        call(trace),
        wholeAnswer,
      );
      expect(trace.children).toHaveLength(1);
      expect(trace.children[0]?.metadata).toEqual({ target: `${server.url}/api/v1/query` });
      expect(JSON.stringify(trace.children[0])).not.toContain("s3cret");
    } finally {
      await server.close();
    }
  });

  it("a query Prometheus refuses is the caller's error; a 5xx to the end is a fault, with its exception", async () => {
    const refusing = await startFaultServer([{ status: 400, body: errorBody("bad_data", "parse error") }]);
    const failing = await startFaultServer([{ status: 500 }]);
    try {
      const dataPlane = new DataPlane(new Credentials(), { mode: "none", headers: {} });
      const refused = new RecordingTrace();
      await expect(
        dataPlane.get(refusing.url, "/query", { query: "sum((" }, call(refused), wholeAnswer),
      ).rejects.toThrow(/rejected the query/);
      expect(refused.children[0]).toMatchObject({ flags: ["error"], failures: [], closes: 1 });
      expect(refused.children[0]?.annotations).toEqual({ attempts: 1, status: 400 });
      const failed = new RecordingTrace();
      await expect(
        dataPlane.get(
          failing.url,
          "/query",
          { query: "up" },
          { ...call(failed), maxAttempts: 2 },
          wholeAnswer,
        ),
      ).rejects.toThrow(/HTTP 500/);
      expect(failed.children[0]).toMatchObject({ annotations: { attempts: 2, status: 500 }, closes: 1 });
      expect(failed.children[0]?.failures).toMatchObject([{ remote: true }]);
    } finally {
      await Promise.all([refusing.close(), failing.close()]);
    }
  });
});

describe("the DynamoDB session store", () => {
  let dynamo: Dynalite;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(() => dynamo?.close());

  const record = (sessionId: string): SessionRecord => ({
    sessionId,
    initializeParams: { protocolVersion: "2025-11-25" },
    protocolVersion: "2025-11-25",
    logLevel: undefined,
    principal: undefined,
    createdAt: 1,
    updatedAt: 1,
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    version: 1,
  });

  it("one subsegment per call; a write whose condition fails is flagged an error, not a fault", async () => {
    const store = new DynamoSessionStore({
      tableName: dynamo.tableName,
      region: "us-east-1",
      endpoint: dynamo.endpoint,
    });
    const trace = new RecordingTrace();
    const context = testContext(10_000, { trace });
    await store.create(record("traced-1"), context);
    expect(await store.get("traced-1", context)).toMatchObject({ version: 1 });
    expect(await store.update("traced-1", 7, { logLevel: "debug" }, true, context)).toBe("conflict");
    expect(await store.delete("traced-1", context)).toBe(true);
    const names = trace.children.map((child) => child.name);
    expect(names.slice(0, 3)).toEqual(["DynamoDB create", "DynamoDB get", "DynamoDB update"]);
    expect(names.at(-1)).toBe("DynamoDB delete");
    const conflict = trace.children[2] as RecordingTrace;
    expect(conflict).toMatchObject({ flags: ["error"], failures: [], closes: 1 });
    for (const child of trace.children) {
      expect(child.metadata).toEqual({ table: dynamo.tableName });
      expect(child.closes).toBe(1);
    }
  });
});

describe("the AMP control plane", () => {
  const WS = (n: number) => `ws-0000000${n}-aaaa-bbbb-cccc-dddddddddddd`;
  const options = { region: "us-west-2", profile: undefined };

  it("one subsegment per call, all pages of ListWorkspaces in one; a workspace not found is the caller's error", async () => {
    const amp = await startFakeAmp({
      region: "us-west-2",
      pageSize: 1,
      workspaces: [1, 2, 3].map((n) => ({ workspaceId: WS(n), status: "ACTIVE" })),
    });
    try {
      const controlPlane = new ControlPlane(new Credentials(), amp.url);
      const trace = new RecordingTrace();
      const context = testContext(10_000, { trace });
      expect(await controlPlane.listWorkspaces(options, context)).toHaveLength(3);
      expect(amp.calls.ListWorkspaces).toBe(3);
      await controlPlane.describeWorkspace(WS(1), options, context);
      await expect(controlPlane.describeWorkspace(WS(9), options, context)).rejects.toBeInstanceOf(
        AmpNotFoundError,
      );
      const [list, found, missing] = trace.children as [RecordingTrace, RecordingTrace, RecordingTrace];
      expect(trace.children).toHaveLength(3);
      expect(list).toMatchObject({
        name: "AMP ListWorkspaces",
        annotations: { region: "us-west-2" },
        closes: 1,
      });
      expect(found).toMatchObject({
        name: "AMP DescribeWorkspace",
        annotations: { region: "us-west-2", workspace_id: WS(1) },
        failures: [],
        flags: [],
        closes: 1,
      });
      expect(missing).toMatchObject({ flags: ["error"], failures: [], closes: 1 });
    } finally {
      await amp.close();
    }
  });

  it("a refusal (access denied) is a fault, with its exception", async () => {
    const amp = await startFakeAmp({ region: "us-west-2", workspaces: [], deny: ["ListWorkspaces"] });
    try {
      const trace = new RecordingTrace();
      await expect(
        new ControlPlane(new Credentials(), amp.url).listWorkspaces(options, testContext(10_000, { trace })),
      ).rejects.toThrow(/Access denied for ListWorkspaces/);
      expect(trace.children[0]).toMatchObject({ flags: [], closes: 1 });
      expect(trace.children[0]?.failures).toMatchObject([
        { error: { message: expect.stringMatching(/^Access denied/) } },
      ]);
    } finally {
      await amp.close();
    }
  });
});
