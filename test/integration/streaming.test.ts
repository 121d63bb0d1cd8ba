import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Credentials } from "../../src/prometheus/credentials.js";
import { DataPlane } from "../../src/prometheus/dataPlane.js";
import { createUpstream } from "../../src/prometheus/upstream.js";
import { ExecuteRangeQuery, ListMetrics } from "../../tools/index.js";
import { runToEnd } from "../support/childProcess.js";
import { errorBody, startFaultServer, successBody } from "../support/faultServer.js";
import { callTool, LOCAL_SETTINGS, makeToolCall, toolError } from "../support/toolCall.js";

const SERIES = 2_100;
const POINTS = 1_440;
const RANGE = { query: "big", start: "1700000000", end: "1700086340", step: "60s" };
const MB = 1024 * 1024;
/** The V8 heap of the process reading the answer: well under the answer's ~56 MiB. */
const HEAP_MB = 40;
let probeBundle: Promise<string>;

/** test/support/streamProbe.ts bundled to one file a child Node can run. */
async function bundleProbe(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stream-probe-"));
  const outfile = join(dir, "streamProbe.mjs");
  await build({
    entryPoints: ["test/support/streamProbe.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return outfile;
}

/** Starts test/support/bigAnswerServer.mjs in its own process and resolves with its URL. */
async function startBigAnswerServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ["test/support/bigAnswerServer.mjs", String(SERIES), String(POINTS)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { url: line.toString().trim(), child };
}

describe("a Prometheus answer of about 60 MB", () => {
  let big: { url: string; child: ChildProcess };

  beforeAll(async () => {
    big = await startBigAnswerServer();
    probeBundle = bundleProbe();
  });

  afterAll(() => {
    big?.child.kill("SIGTERM");
  });

  /** One ExecuteRangeQuery through the handler in a child process whose V8 heap is smaller than the answer. */
  async function probe(series: number) {
    const run = await runToEnd(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_MB}`,
        await probeBundle,
        big.url,
        JSON.stringify({ ...RANGE, query: `big_${series}` }),
      ],
      { timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const probed = JSON.parse(run.stdout) as {
      status: number;
      body: string;
      ms: number;
      baselineRss: number;
      peakRss: number;
    };
    expect(probed.status).toBe(200);
    const { result } = JSON.parse(probed.body) as {
      result: {
        structuredContent: {
          result: { metric: { pod: string } }[];
          truncated: { total: { series: number; bytes: number } };
        };
        content: { text: string }[];
      };
    };
    const { truncated, result: kept } = result.structuredContent;
    expect(truncated.total.series).toBe(series);
    // The largest values come last in the stream: they are still the ones kept.
    expect(kept.map((s) => s.metric.pod)).toEqual(kept.map((_, i) => `pod-${series - 1 - i}`));
    const textBytes = result.content.reduce((sum, item) => sum + Buffer.byteLength(item.text), 0);
    expect(textBytes).toBeLessThanOrEqual(100_000);
    const growth = probed.peakRss - probed.baselineRss;
    console.info(
      `${(truncated.total.bytes / MB).toFixed(1)} MiB answer, ${HEAP_MB} MiB heap: ${Math.round(probed.ms)} ms, RSS grew ${(growth / MB).toFixed(1)} MiB`,
    );
    return { bytes: truncated.total.bytes, ms: probed.ms, growth };
  }

  it("is read as a stream: bounded memory whatever its size, a bounded answer, before the deadline", async () => {
    const sixty = await probe(SERIES);
    expect(sixty.bytes).toBeGreaterThan(55 * MB);
    expect(sixty.ms).toBeLessThan(25_000);
    // Three times the answer: memory does not follow it (what it grows by is Node's own buffers and heap).
    const triple = await probe(3 * SERIES);
    expect(triple.bytes).toBeGreaterThan(165 * MB);
    expect(triple.growth).toBeLessThan(triple.bytes / 2);
    expect(triple.growth).toBeLessThan(sixty.growth + 24 * MB);
  }, 120_000);

  it("past the byte cap stops reading and says how to narrow the query", async () => {
    const settings = { ...LOCAL_SETTINGS, prometheusUrl: big.url, prometheusAuth: "none" as const };
    const upstream = createUpstream(settings);
    const capped = {
      ...upstream,
      dataPlane: new DataPlane(new Credentials(), "none", { maxAnswerBytes: MB }),
    };
    const started = Date.now();
    const error = await toolError(ExecuteRangeQuery, RANGE, makeToolCall(settings, { upstream: capped }));
    expect(error.message).toMatch(/too large to read \(more than 1\.0 MiB read; the limit is 1\.0 MiB\)/);
    expect(error.message).toMatch(/sum by .*topk.*larger step or a shorter range/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("ListMetrics passes limit to Prometheus where it is understood", () => {
  const names = ["a_total", "b_total", "c_total", "d_total", "e_total"];

  it("asks for one more than the limit; a server that applied it gives a lower bound", async () => {
    const server = await startFaultServer([{ status: 200, body: successBody(names.slice(0, 3)) }]);
    try {
      const result = (await callTool(
        ListMetrics,
        { limit: "2" },
        makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" }),
      )) as {
        metrics: string[];
        truncated: Record<string, unknown>;
      };
      expect(server.requests).toEqual(["/api/v1/label/__name__/values?limit=3"]);
      expect(result.metrics).toEqual(["a_total", "b_total"]);
      expect(result.truncated).toMatchObject({
        cut_by: "limit",
        total: { names: 3 },
        total_is_lower_bound: true,
      });
    } finally {
      await server.close();
    }
  });

  it("asks again without it when the server rejects it, and remembers", async () => {
    const server = await startFaultServer([
      { status: 400, body: errorBody("bad_data", 'invalid parameter "limit": unknown parameter') },
      { status: 200, body: successBody(names) },
    ]);
    try {
      const call = makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" });
      const result = (await callTool(ListMetrics, { limit: "2" }, call)) as {
        metrics: string[];
        truncated: Record<string, unknown>;
      };
      expect(result.metrics).toEqual(["a_total", "b_total"]);
      expect(result.truncated).toMatchObject({ cut_by: "limit", total: { names: 5 } });
      expect(result.truncated.total_is_lower_bound).toBeUndefined();
      await callTool(
        ListMetrics,
        { limit: "2" },
        makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" }, { upstream: call.upstream }),
      );
      expect(server.requests).toEqual([
        "/api/v1/label/__name__/values?limit=3",
        "/api/v1/label/__name__/values",
        "/api/v1/label/__name__/values",
      ]);
    } finally {
      await server.close();
    }
  });

  it("a rejection that is not about limit stays an error", async () => {
    const server = await startFaultServer([{ status: 400, body: errorBody("bad_data", "something else") }]);
    try {
      const error = await toolError(
        ListMetrics,
        { limit: "2" },
        makeToolCall({ prometheusUrl: server.url, prometheusAuth: "none" }),
      );
      expect(error.message).toContain("bad_data: something else");
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
