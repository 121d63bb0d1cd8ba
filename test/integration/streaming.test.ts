import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Credentials } from "../../src/prometheus/credentials.js";
import { DataPlane } from "../../src/prometheus/dataPlane.js";
import { createUpstream } from "../../src/prometheus/upstream.js";
import { estimateTokens } from "../../src/results/tokens.js";
import { ExecuteRangeQuery, ListMetrics } from "../../tools/index.js";
import {
  bundleStreamProbe,
  probeRangeQuery,
  type ServedAnswer,
  startBigAnswerServer,
} from "../support/bigAnswer.js";
import { waitUntil } from "../support/fakeClock.js";
import { errorBody, startFaultServer, successBody } from "../support/faultServer.js";
import { callTool, LOCAL_SETTINGS, makeToolCall, toolError } from "../support/toolCall.js";

const SERIES = 2_100;
const POINTS = 1_440;
const RANGE = { query: "big", start: "1700000000", end: "1700086340", step: "60s" };
const MB = 1024 * 1024;
/** The V8 heap of the process reading the answer: well under the answer's ~56 MiB. */
const HEAP_MB = 40;
let probeBundle: string;

describe("a Prometheus answer of about 60 MB", () => {
  let big: { url: string; child: ChildProcess; answers: ServedAnswer[] };

  beforeAll(async () => {
    big = await startBigAnswerServer(SERIES, POINTS);
    probeBundle = await bundleStreamProbe();
  });

  afterAll(() => {
    big?.child.kill("SIGTERM");
  });

  /** One ExecuteRangeQuery through the handler in a child process whose V8 heap is smaller than the answer. */
  async function probe(series: number) {
    const probed = await probeRangeQuery(probeBundle, HEAP_MB, big.url, {
      ...RANGE,
      query: `big_${series}`,
    });
    expect(probed.status).toBe(200);
    // Read to its end before the deadline (30 s less 500 ms): neither -32001 nor the tool's own timeout.
    const answered = JSON.parse(probed.body) as { error?: unknown; result?: { isError?: boolean } };
    expect(answered.error, probed.body.slice(0, 500)).toBeUndefined();
    expect(answered.result?.isError, probed.body.slice(0, 500)).not.toBe(true);
    const { result } = JSON.parse(probed.body) as {
      result: {
        structuredContent: {
          result: { metric: { pod: string } }[];
          truncated: { total: { series: number; bytes: number } };
          series_stats: { rows: unknown[][]; common_labels: Record<string, string> };
        };
        content: { text: string }[];
      };
    };
    const { truncated, result: kept, series_stats: table } = result.structuredContent;
    expect(truncated.total.series).toBe(series);
    // Series i is valued i: the middle is typical, the first and the last the most unusual, and they are
    // kept though the last comes last in the stream.
    const pods = kept.map((s) => Number(s.metric.pod.slice("pod-".length)));
    expect(pods.slice(0, 2).sort((a, b) => a - b)).toEqual([0, series - 1]);
    expect(table.rows.length).toBeGreaterThan(0);
    expect(estimateTokens(result.content[0]?.text ?? "")).toBeLessThanOrEqual(20_000);
    const growth = probed.peakRss - probed.baselineRss;
    console.info(
      `${(truncated.total.bytes / MB).toFixed(1)} MiB answer, ${HEAP_MB} MiB heap: ${Math.round(probed.ms)} ms, RSS grew ${(growth / MB).toFixed(1)} MiB`,
    );
    return { bytes: truncated.total.bytes, ms: probed.ms, growth };
  }

  it("is read as a stream: bounded memory whatever its size, a bounded answer, before the deadline", async () => {
    // A process's peak RSS moves with its garbage collections (more so while other tests load the
    // machine): each size is read three times, and the median run kept.
    const medianOfThree = async (series: number) => {
      const runs = [await probe(series), await probe(series), await probe(series)];
      return runs.sort((a, b) => a.growth - b.growth)[1] as (typeof runs)[number];
    };
    const sixty = await medianOfThree(SERIES);
    expect(sixty.bytes).toBeGreaterThan(55 * MB);
    // Three times the answer, three times the series: memory grows by a fraction of the answer's growth
    // (each series keeps its statistics and a bounded curve; Node's network buffers stay as they were).
    const triple = await medianOfThree(3 * SERIES);
    expect(triple.bytes).toBeGreaterThan(165 * MB);
    expect(triple.growth - sixty.growth).toBeLessThan((triple.bytes - sixty.bytes) / 4);
    // Against the same process only reading the answer and dropping it (what Node's fetch takes): the
    // description of 6,300 series costs at most 32 MiB more.
    const args = { ...RANGE, query: `big_${3 * SERIES}` };
    const bare = [];
    for (const _run of [1, 2, 3])
      bare.push(await probeRangeQuery(probeBundle, HEAP_MB, big.url, args, "bare"));
    const bareGrowth = bare.map((run) => run.peakRss - run.baselineRss).sort((a, b) => a - b)[1] as number;
    console.info(`the same answer only read: RSS grew ${(bareGrowth / MB).toFixed(1)} MiB`);
    expect(triple.growth).toBeLessThan(bareGrowth + 32 * MB);
  }, 180_000);

  it("past the byte cap stops reading and says how to narrow the query", async () => {
    const settings = { ...LOCAL_SETTINGS, prometheusUrl: big.url, prometheusAuth: "none" as const };
    const upstream = createUpstream(settings);
    const capped = {
      ...upstream,
      dataPlane: new DataPlane(new Credentials(), { mode: "none", headers: {} }, { maxAnswerBytes: MB }),
    };
    const served = big.answers.length;
    const error = await toolError(ExecuteRangeQuery, RANGE, makeToolCall(settings, { upstream: capped }));
    expect(error.message).toMatch(/too large to read \(more than 1\.0 MiB read; the limit is 1\.0 MiB\)/);
    expect(error.message).toMatch(/sum by .*topk.*larger step or a shorter range/);
    // The server saw the answer given up, its connection closed a few MiB into its 56 (what the sockets
    // hold besides the 1 MiB read), rather than sent to its end.
    await waitUntil(() => big.answers.length > served, "the server's account of the answer");
    const answer = big.answers[served] as ServedAnswer;
    expect(answer).toMatchObject({ query: "big", whole: false });
    expect(answer.bytes).toBeLessThan(16 * MB);
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
