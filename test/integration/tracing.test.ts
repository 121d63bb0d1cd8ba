import { createSocket, type Socket } from "node:dgram";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadedStatically } from "../support/bundle.js";
import { runOk } from "../support/childProcess.js";
import { APP_SETTINGS } from "../support/configVariables.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";
import { type FakeAmp, startFakeAmp } from "../support/fakeAmp.js";
import { JSON_HEADERS } from "../support/handler.js";
import { refusedUrl } from "../support/net.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import type { ProbeOutput, ProbeStep } from "../support/tracingProbe.js";

// TRACING=on, observed the way X-Ray would see it: the handler, bundled with code splitting as deployed,
// runs in a child process with Lambda's environment (LAMBDA_TASK_ROOT, `_X_AMZN_TRACE_ID` per
// invocation), so the X-Ray SDK builds its facade segment and sends each subsegment as a UDP datagram
// to AWS_XRAY_DAEMON_ADDRESS: here a socket of this test, standing in for the X-Ray daemon.
// A child process because the X-Ray SDK's state (its facade segment, its async context, the daemon
// address) is process-wide and set when it loads.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const REGION = "us-east-1";
const MODERN = "2026-07-28";
/** The W3C trace id a 2026-07-28 client sends in `_meta.traceparent`. */
const MCP_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
/** The facade segment's id: the `Parent` of every invocation's `_X_AMZN_TRACE_ID`. */
const FACADE_ID = "53995c3f42cd8ad8";
const QUERY = "test_requests_total";
const BAD_QUERY = "sum((test_temperature_celsius";
const WS = (n: number) => `ws-0000000${n}-aaaa-bbbb-cccc-dddddddddddd`;

/** Lambda's trace header for invocation `n`: its own X-Ray trace id, sampled unless said otherwise. */
function xrayRoot(n: number): string {
  return `1-6740a000-${n.toString(16).padStart(24, "0")}`;
}
function xrayHeader(n: number, sampled = true): string {
  return `Root=${xrayRoot(n)};Parent=${FACADE_ID};Sampled=${sampled ? 1 : 0}`;
}

/** A 2026-07-28 tools/call, with a traceparent in `_meta`. */
function modernToolCall(id: number, name: string, args: Record<string, unknown>): ProbeStep["http"] {
  return {
    method: "POST",
    path: "/mcp",
    headers: {
      ...JSON_HEADERS,
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
          traceparent: `00-${MCP_TRACE_ID}-00f067aa0ba902b7-01`,
        },
      },
    }),
  };
}

function legacy(body: Record<string, unknown>): ProbeStep["http"] {
  return { method: "POST", path: "/mcp", headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

/** One subsegment document as the X-Ray daemon receives it. */
interface Document {
  id: string;
  name: string;
  type?: string;
  trace_id: string;
  parent_id?: string;
  start_time: number;
  end_time?: number;
  in_progress?: boolean;
  annotations?: Record<string, string | number | boolean>;
  metadata?: Record<string, Record<string, unknown>>;
  error?: boolean;
  fault?: boolean;
  cause?: { exceptions?: { message?: string; remote?: boolean }[] };
}

/** A UDP socket standing in for the X-Ray daemon: each datagram is `{"format":"json","version":1}\n<doc>`. */
async function startDaemon(): Promise<{
  address: string;
  documents: Document[];
  raw: string[];
  close(): void;
}> {
  const socket: Socket = createSocket("udp4");
  const documents: Document[] = [];
  const raw: string[] = [];
  socket.on("message", (message) => {
    const text = message.toString("utf8");
    raw.push(text);
    const newline = text.indexOf("\n");
    // Checked by the tests (in `raw`): a throw here would be an uncaught exception of the test process.
    try {
      documents.push(JSON.parse(text.slice(newline + 1)) as Document);
    } catch {
      // left for the header check to report
    }
  });
  await new Promise<void>((done) => socket.bind(0, "127.0.0.1", done));
  return { address: `127.0.0.1:${socket.address().port}`, documents, raw, close: () => socket.close() };
}

describe.skipIf(!prometheusAvailable())("TRACING: X-Ray subsegments, through the bundled handler", () => {
  let prometheus: RunningPrometheus;
  let amp: FakeAmp;
  let dynamo: Dynalite;
  let outdir: string;
  let probe: string;

  beforeAll(async () => {
    const unreachable = await refusedUrl();
    [prometheus, amp, dynamo] = await Promise.all([
      startPrometheus(),
      startFakeAmp({
        region: REGION,
        pageSize: 2,
        workspaces: [
          { workspaceId: WS(1), alias: "one", status: "ACTIVE" },
          { workspaceId: WS(2), status: "ACTIVE" },
          { workspaceId: WS(3), status: "CREATING" },
          // Its Prometheus refuses connections: the data plane's failure, as a fault.
          { workspaceId: WS(4), status: "ACTIVE", prometheusEndpoint: `${unreachable}/workspaces/${WS(4)}/` },
        ],
      }),
      startDynalite(),
    ]);
    // Next to node_modules, so the bundle's packages (external) resolve as the function's would.
    const cache = join(ROOT, "node_modules", ".cache");
    await mkdir(cache, { recursive: true });
    outdir = await mkdtemp(join(cache, "tracing-"));
    await build({
      entryPoints: [join(ROOT, "test/support/tracingProbe.ts"), join(ROOT, "test/support/xrayOrderProbe.ts")],
      bundle: true,
      splitting: true,
      packages: "external",
      format: "esm",
      platform: "node",
      outdir,
      outExtension: { ".js": ".mjs" },
      logLevel: "silent",
    });
    probe = join(outdir, "tracingProbe.mjs");
  });

  afterAll(async () => {
    await Promise.all([prometheus?.close(), amp?.close(), dynamo?.close()]);
    if (outdir) await rm(outdir, { recursive: true, force: true });
  });

  /** Runs the steps in a fresh "container" with TRACING=`tracing`; what it answered and what the daemon got. */
  async function run(tracing: "on" | "off", steps: ProbeStep[], inLambda = true) {
    const { stdout, documents, raw } = await runScript(probe, [JSON.stringify(steps)], tracing, inLambda);
    const output = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ProbeOutput;
    return { output, documents, raw };
  }

  /** Runs a bundled script in a child process with the function's environment; what the daemon got. */
  async function runScript(script: string, args: string[], tracing: "on" | "off", inLambda = true) {
    const daemon = await startDaemon();
    try {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of [
        ...APP_SETTINGS,
        "TRACING",
        "AWS_XRAY_CONTEXT_MISSING",
        "POWERTOOLS_TRACE_ENABLED",
      ]) {
        delete env[name];
      }
      delete env._X_AMZN_TRACE_ID;
      Object.assign(env, {
        NODE_OPTIONS: "",
        // Lambda's environment: the X-Ray SDK makes its facade segment, Powertools Tracer is active.
        ...(inLambda
          ? {
              LAMBDA_TASK_ROOT: outdir,
              AWS_EXECUTION_ENV: "AWS_Lambda_nodejs20.x",
              AWS_LAMBDA_FUNCTION_NAME: "prometheus-mcp-lambda-test-mcp",
              _HANDLER: "src/lambda/handler.handler",
            }
          : {}),
        AWS_REGION: REGION,
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
        // The function's settings.
        TRACING: tracing,
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        AMP_ENDPOINT: amp.url,
        SESSION_TABLE: dynamo.tableName,
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        LOG_LEVEL: "SILENT",
        METRICS: "off",
      });
      const { stdout } = await runOk(process.execPath, [script, ...args], {
        cwd: outdir,
        env,
        timeoutMs: 60_000,
      });
      // Loopback datagrams sent before the child exited: give this process's loop a moment to read them.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { stdout, documents: [...daemon.documents], raw: [...daemon.raw] };
    } finally {
      daemon.close();
    }
  }

  const STEPS: ProbeStep[] = [
    { xray: xrayHeader(1), http: modernToolCall(1, "ExecuteQuery", { query: QUERY, time: "1700000600" }) },
    {
      xray: xrayHeader(2),
      http: modernToolCall(2, "ExecuteQuery", { query: BAD_QUERY, time: "1700000600" }),
    },
    { xray: xrayHeader(3), http: modernToolCall(3, "GetAvailableWorkspaces", {}) },
    { xray: xrayHeader(4), http: modernToolCall(4, "ExecuteQuery", { query: QUERY, workspace_id: WS(4) }) },
    {
      xray: xrayHeader(5),
      http: legacy({
        jsonrpc: "2.0",
        id: 5,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    },
    { xray: xrayHeader(6), http: legacy({ jsonrpc: "2.0", id: 6, method: "tools/list" }), inSession: true },
    // Not sampled by X-Ray: nothing is built, nothing is sent.
    {
      xray: xrayHeader(7, false),
      http: modernToolCall(7, "ExecuteQuery", { query: QUERY, time: "1700000600" }),
    },
  ];

  describe("TRACING=on", () => {
    let output: ProbeOutput;
    let documents: Document[];
    let raw: string[];

    beforeAll(async () => {
      ({ output, documents, raw } = await run("on", STEPS));
    }, 90_000);

    /** The documents of invocation `n`, each by name (names are unique within these invocations but one). */
    const of = (n: number) => documents.filter((doc) => doc.trace_id === xrayRoot(n));
    const named = (n: number, name: string): Document[] => of(n).filter((doc) => doc.name === name);
    const one = (n: number, name: string): Document => {
      const found = named(n, name);
      expect(
        found,
        `${name} in invocation ${n}: ${JSON.stringify(of(n).map((doc) => doc.name))}`,
      ).toHaveLength(1);
      return found[0] as Document;
    };

    it("the tracer was loaded, and every request was answered", () => {
      expect(output.tracerImported).toBe(true);
      expect(output.xraySdkLoaded).toBe(true);
      expect(output.answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200, 200, 200]);
      expect(JSON.parse(output.answers[0]?.body ?? "{}").result.isError ?? false).toBe(false);
      expect(JSON.parse(output.answers[1]?.body ?? "{}")).toMatchObject({ result: { isError: true } });
      expect(JSON.parse(output.answers[3]?.body ?? "{}")).toMatchObject({ result: { isError: true } });
    });

    it("every subsegment is closed, belongs to the invocation's trace and hangs off its facade segment", () => {
      expect(documents.length).toBeGreaterThan(0);
      for (const doc of documents) {
        expect(doc.type).toBe("subsegment");
        expect(doc.in_progress).toBeUndefined();
        expect(doc.end_time).toBeGreaterThanOrEqual(doc.start_time);
        expect([1, 2, 3, 4, 5, 6].map(xrayRoot)).toContain(doc.trace_id);
      }
      for (let n = 1; n <= 6; n++) {
        expect(one(n, "## src/lambda/handler.handler").parent_id).toBe(FACADE_ID);
      }
    });

    it("a tool call: the request's subsegment (with the _meta traceparent's trace id), the tool's, the Prometheus call's", () => {
      const request = one(1, "## src/lambda/handler.handler");
      expect(request.annotations).toEqual({
        ColdStart: true,
        Service: "prometheus-mcp-lambda",
        route: "mcp",
        status: 200,
        era: "modern",
        mcp_trace_id: MCP_TRACE_ID,
      });
      const tool = one(1, "Tool ExecuteQuery");
      expect(tool.parent_id).toBe(request.id);
      expect(tool.annotations).toEqual({ tool: "ExecuteQuery", failed: false });
      const prometheusCall = one(1, "Prometheus /query");
      expect(prometheusCall.parent_id).toBe(tool.id);
      expect(prometheusCall.annotations).toEqual({ attempts: 1, status: 200 });
      expect(prometheusCall.metadata?.["prometheus-mcp-lambda"]?.target).toBe(
        `${prometheus.url}/api/v1/query`,
      );
      expect(prometheusCall.fault ?? false).toBe(false);
      expect(of(1)).toHaveLength(3);
    });

    it("each datagram is the daemon's header line and one document", () => {
      expect(raw.length).toBe(documents.length);
      for (const text of raw)
        expect(JSON.parse(text.slice(0, text.indexOf("\n")))).toEqual({ format: "json", version: 1 });
    });

    it("the query text is in no subsegment, annotation or otherwise", () => {
      for (const text of raw) {
        expect(text).not.toContain(QUERY);
        expect(text).not.toContain(BAD_QUERY);
      }
    });

    it("a query Prometheus refuses: its subsegment is flagged an error (the caller's), not a fault", () => {
      const prometheusCall = one(2, "Prometheus /query");
      expect(prometheusCall.annotations).toEqual({ attempts: 1, status: 400 });
      expect(prometheusCall.error).toBe(true);
      expect(prometheusCall.fault).toBeUndefined();
      const tool = one(2, "Tool ExecuteQuery");
      expect(tool.annotations).toEqual({ tool: "ExecuteQuery", failed: true });
      expect(tool.error).toBe(true);
      expect(one(2, "## src/lambda/handler.handler").annotations?.ColdStart).toBe(false);
    });

    it("AMP: one subsegment per call (all pages of ListWorkspaces in one), the region and workspace annotated", () => {
      const tool = one(3, "Tool GetAvailableWorkspaces");
      const list = one(3, "AMP ListWorkspaces");
      expect(list.parent_id).toBe(tool.id);
      expect(list.annotations).toEqual({ region: REGION });
      // The ACTIVE workspaces are described side by side, each in its own subsegment.
      const described = named(3, "AMP DescribeWorkspace");
      expect(described.map((doc) => doc.annotations?.workspace_id).sort()).toEqual([WS(1), WS(2), WS(4)]);
      for (const doc of described) {
        expect(doc.parent_id).toBe(tool.id);
        expect(doc.annotations?.region).toBe(REGION);
      }
      expect(amp.calls.ListWorkspaces).toBeGreaterThanOrEqual(2);
    });

    it("a failed upstream call: a fault with its exception, its attempts, still closed", () => {
      const prometheusCall = one(4, "Prometheus /query");
      expect(prometheusCall.fault).toBe(true);
      expect(prometheusCall.annotations).toEqual({ attempts: 3 });
      expect(prometheusCall.cause?.exceptions?.[0]).toMatchObject({
        message: expect.stringMatching(/^Could not reach Prometheus at .*Gave up after 3 attempts\.$/),
        remote: true,
      });
      expect(prometheusCall.end_time).toBeDefined();
      // The workspace's endpoint was looked up first (AMP DescribeWorkspace, cached per container).
      expect(one(4, "Tool ExecuteQuery").annotations).toEqual({ tool: "ExecuteQuery", failed: true });
    });

    it("DynamoDB: one subsegment per session-store call", () => {
      const create = one(5, "DynamoDB create");
      expect(create.parent_id).toBe(one(5, "## src/lambda/handler.handler").id);
      expect(create.metadata?.["prometheus-mcp-lambda"]?.table).toBe(dynamo.tableName);
      expect(create.fault ?? false).toBe(false);
      expect(one(5, "## src/lambda/handler.handler").annotations).toMatchObject({
        era: "legacy",
        status: 200,
      });
      expect(named(6, "DynamoDB get").length).toBeGreaterThanOrEqual(1);
      expect(of(6).every((doc) => doc.name.startsWith("DynamoDB ") || doc.name.startsWith("## "))).toBe(true);
    });

    it("an invocation X-Ray did not sample sends nothing", () => {
      expect(documents.filter((doc) => doc.trace_id === xrayRoot(7))).toEqual([]);
      expect(output.answers[6]?.statusCode).toBe(200);
    });
  });

  it("a subsegment closed before one inside it is still sent, once, when the last inside it closes", async () => {
    for (const order of ["in-order", "invocation-first"]) {
      const { documents } = await runScript(
        join(outdir, "xrayOrderProbe.mjs"),
        [order, xrayHeader(21), xrayHeader(22)],
        "on",
      );
      for (const n of [21, 22]) {
        const sent = documents.filter((doc) => doc.trace_id === xrayRoot(n));
        expect(sent.map((doc) => doc.name).sort(), order).toEqual([
          "## src/lambda/handler.handler",
          "Prometheus /query",
          "Tool T",
        ]);
        const byName = Object.fromEntries(sent.map((doc) => [doc.name, doc]));
        expect(byName["Tool T"]?.parent_id).toBe(byName["## src/lambda/handler.handler"]?.id);
        expect(byName["Prometheus /query"]?.parent_id).toBe(byName["Tool T"]?.id);
        // Each once, on its own: none repeated inside another.
        for (const doc of sent) expect(doc).not.toHaveProperty("subsegments");
      }
    }
  }, 90_000);

  it("TRACING=on outside Lambda (serverless offline, invoke local): the tracer is inactive, nothing is sent", async () => {
    const { output, documents } = await run("on", STEPS.slice(0, 1), false);
    expect(output.answers.map((answer) => answer.statusCode)).toEqual([200]);
    expect(output.tracerImported).toBe(true);
    expect(documents).toEqual([]);
  }, 90_000);

  it("TRACING=off: neither Powertools Tracer nor the X-Ray SDK is loaded, and nothing is sent", async () => {
    const { output, documents } = await run("off", STEPS.slice(0, 1));
    expect(output.answers.map((answer) => answer.statusCode)).toEqual([200]);
    expect(output.tracerImported).toBe(false);
    expect(output.xraySdkLoaded).toBe(false);
    expect(documents).toEqual([]);
  }, 90_000);
});

describe("the bundle (esbuild, code splitting, as serverless-esbuild builds the function)", () => {
  it("loads the tracer and the X-Ray SDK only through a dynamic import: the entry's static graph has neither", async () => {
    const outdir = await mkdtemp(join(ROOT, "node_modules", ".cache", "tracing-bundle-"));
    try {
      // serverless.yml's custom.esbuild: everything bundled (the AWS SDK too), split, ESM.
      const { metafile } = await build({
        absWorkingDir: ROOT,
        entryPoints: ["src/lambda/handler.ts"],
        bundle: true,
        splitting: true,
        format: "esm",
        platform: "node",
        target: "node20",
        mainFields: ["module", "main"],
        outdir,
        metafile: true,
        write: false,
        logLevel: "silent",
      });
      const outputs = (metafile as Metafile).outputs;
      // Everything the entry loads before it runs: its static imports, transitively.
      const eager = loadedStatically(metafile as Metafile, "src/lambda/handler.ts");
      expect(eager.length).toBeGreaterThan(0);
      const packagesOf = (path: string) =>
        Object.keys(outputs[path]?.inputs ?? {}).filter((input) =>
          /node_modules\/(aws-xray-sdk-core|cls-hooked|@aws-lambda-powertools\/tracer)\//.test(input),
        );
      for (const path of eager) expect(packagesOf(path), relative(ROOT, path)).toEqual([]);
      // …and they are bundled, in a chunk that what the entry loads imports dynamically (the entry, or
      // a chunk it shares with code loaded on first use).
      const lazy = Object.keys(outputs).filter((path) => packagesOf(path).length > 0);
      expect(lazy).toHaveLength(1);
      const dynamic = eager.flatMap((path) =>
        (outputs[path]?.imports ?? [])
          .filter((imported) => imported.kind === "dynamic-import")
          .map((imported) => imported.path),
      );
      expect(dynamic).toContain(lazy[0]);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});
