import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rounded } from "../../src/results/numbers.js";
import { estimateTokens } from "../../src/results/tokens.js";
import { RESPONSE_LIMIT_BYTES } from "../../src/routes/ceiling.js";
import {
  type CutValue,
  type RangeSeries,
  roundedSamples,
  type Sample,
  type SeriesTableValue,
  vectorTableSamples,
} from "../support/cutResults.js";
import { type Handler, type HttpResult, makeHandler, postMcp } from "../support/handler.js";
import {
  CPU_METRIC,
  expectedCpuRate,
  LARGE_DATASET,
  largeMetricNames,
  largeOpenMetricsChunks,
  MEMORY_METRIC,
  topPodsByRate,
} from "../support/largeDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";

const { start, end } = LARGE_DATASET;
/** CPU by pod over the last day: 300 series × 1,436 points, about 11.7 MB from Prometheus. */
const CPU_BY_POD = {
  query: `rate(${CPU_METRIC}[5m])`,
  start: String(start + 300),
  end: String(end),
  step: "60s",
};
const DEFAULT_TOKENS = 20_000;

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent: Omit<CutValue, "result" | "truncated"> & {
    result?: RangeSeries[];
    metrics?: string[];
    truncated?: CutValue["truncated"] & { total_is_lower_bound?: boolean };
  };
  isError?: boolean;
}

/** Bytes of the payload Lambda would send back for this HTTP result. */
const payloadBytes = (result: HttpResult) => Buffer.byteLength(JSON.stringify(result), "utf8");
const textTokens = (result: ToolResult) => estimateTokens(result.content.map((item) => item.text).join(""));

describe.skipIf(!prometheusAvailable())(
  "large results against a real Prometheus with a day of 300 series",
  () => {
    let prometheus: RunningPrometheus;
    let handler: Handler;

    beforeAll(async () => {
      prometheus = await startPrometheus({ openMetrics: largeOpenMetricsChunks });
      handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
    }, 60_000);

    afterAll(async () => {
      await prometheus?.close();
    });

    async function callTool(name: string, args: Record<string, unknown>, h = handler) {
      const http = await postMcp(h, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      });
      expect(http.statusCode).toBe(200);
      return { http, result: (JSON.parse(http.body) as { result: ToolResult }).result };
    }

    it("cuts CPU by pod over a day to the budget: every pod in series_stats, its flat curves compact, the note first", async () => {
      const { http, result } = await callTool("ExecuteRangeQuery", CPU_BY_POD);
      expect(result.isError).toBeUndefined();
      expect(payloadBytes(http)).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
      expect(textTokens(result)).toBeLessThanOrEqual(DEFAULT_TOKENS);

      const data = result.structuredContent;
      const series = data.result ?? [];
      expect(Object.keys(data)).toEqual(["truncated", "resultType", "range", "result", "series_stats"]);
      expect(data.truncated).toMatchObject({
        cut_by: "size",
        total: { series: 300, points: 300 * 1436 },
        returned: { series: series.length, rows: 300 },
        order: "unusual",
      });
      expect(data.truncated?.total.bytes).toBeGreaterThan(10_000_000);
      expect(data.series_stats?.rows).toHaveLength(300);
      expect(series.length).toBeGreaterThanOrEqual(10);
      // Each pod's rate is constant: its curve is one value from the range's start to its last bucket.
      const step = (data as unknown as { range: { step_seconds: number } }).range.step_seconds;
      for (const { metric, points } of queryPoints(data)) {
        const rate = expectedCpuRate(metric.pod as string);
        expect(new Set(points.map(([, value]) => value))).toEqual(new Set([rounded(rate)]));
        expect(points[0]?.[0]).toBe(start + 300);
        expect(end - (points.at(-1)?.[0] ?? 0)).toBeLessThan(step);
      }
      // The text is the same data, compact; the note is its first key, and the only text item.
      expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(data);
      expect(result.content).toHaveLength(1);
      const note = data.truncated?.note ?? "";
      expect(note).toContain("300 series (430,800 points");
      expect(note).toMatch(/sum by \(namespace\) \(rate\(container_cpu_usage_seconds_total\[5m\]\)\)/);
    });

    it("returns a small answer whole, unmarked: exactly as Prometheus does with exact, values rounded without", async () => {
      const args = { query: MEMORY_METRIC, time: String(end) };
      const upstream = (await prometheus.api("query", args)) as { resultType: string; result: Sample[] };
      expect(upstream.result.length).toBeGreaterThan(1);
      const exact = (await callTool("ExecuteQuery", { ...args, exact: true })).result;
      const { series_stats: exactTable, ...exactRest } = exact.structuredContent;
      expect(exactRest).toEqual(upstream);
      // More than one series: the table of every sample follows, its values rounded.
      expect(vectorTableSamples(exactTable as SeriesTableValue)).toEqual(roundedSamples(upstream.result));
      expect(exact.content).toHaveLength(1);
      const { result } = await callTool("ExecuteQuery", args);
      const { series_stats: table, ...rest } = result.structuredContent;
      expect(rest).toEqual({
        ...upstream,
        result: upstream.result.map((sample) => ({
          ...sample,
          value: [sample.value[0], String(rounded(Number(sample.value[1])))],
        })),
      });
      expect(table).toEqual(exactTable);
      expect(result.content).toHaveLength(1);
    });

    it("limit returns exactly that many series, in the asked order, and says the limit cut them", async () => {
      const roomy = makeHandler({
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        MAX_RESULT_TOKENS: "2000000",
      });
      const { result } = await callTool(
        "ExecuteRangeQuery",
        { ...CPU_BY_POD, limit: 5, order: "highest" },
        roomy,
      );
      const series = result.structuredContent.result ?? [];
      expect(series.map((s) => s.metric.pod)).toEqual(topPodsByRate(5).map((s) => s.labels.pod));
      expect(result.structuredContent.truncated).toMatchObject({
        cut_by: "limit",
        total: { series: 300 },
        returned: { series: 5, rows: 300 },
      });
      expect(result.structuredContent.truncated?.note).toContain(
        "Cut to limit=5: Prometheus answered 300 series",
      );
      const instant = await callTool("ExecuteQuery", {
        query: CPU_BY_POD.query,
        time: String(end),
        limit: "3",
        order: "highest",
      });
      expect(instant.result.structuredContent.result?.map((s) => s.metric.pod)).toEqual(
        topPodsByRate(3).map((s) => s.labels.pod),
      );
    });

    it("a limit above what exists changes nothing", async () => {
      const args = { query: MEMORY_METRIC, time: String(end) };
      const { result } = await callTool("ExecuteQuery", { ...args, limit: 50, exact: true });
      const upstream = (await prometheus.api("query", args)) as { resultType: string; result: Sample[] };
      const { series_stats: table, ...rest } = result.structuredContent;
      expect(rest).toEqual(upstream);
      expect(vectorTableSamples(table as SeriesTableValue)).toEqual(roundedSamples(upstream.result));
    });

    it("keeps a batch of eight such calls within one Lambda response, each cut to its share", async () => {
      const batch = Array.from({ length: 8 }, (_, id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "ExecuteRangeQuery", arguments: { ...CPU_BY_POD, step: `${60 + id}s` } },
      }));
      const http = await postMcp(
        makeHandler({
          PROMETHEUS_URL: prometheus.url,
          PROMETHEUS_AUTH: "none",
          MAX_RESULT_TOKENS: "2000000",
        }),
        batch,
      );
      expect(http.statusCode).toBe(200);
      expect(Buffer.byteLength(http.body, "utf8")).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
      expect(payloadBytes(http)).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
      const replies = JSON.parse(http.body) as { id: number; result: ToolResult }[];
      expect(replies.map((reply) => reply.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      for (const { result } of replies) {
        expect(result.isError).toBeUndefined();
        expect(result.structuredContent.truncated?.total.series).toBe(300);
        expect(result.structuredContent.result?.length).toBeGreaterThan(0);
        expect(result.structuredContent.series_stats?.rows.length).toBeGreaterThan(0);
        // What bound the cut was the reply's share of the response, and the note says so.
        expect(result.structuredContent.truncated?.note).toMatch(/and this reply's [\d,]+ bytes/);
      }
    });

    it("PYTHON_COMPAT keeps the indented layout, still within the budget", async () => {
      const compat = makeHandler({
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        PYTHON_COMPAT: "true",
      });
      const { result } = await callTool("ExecuteRangeQuery", CPU_BY_POD, compat);
      expect(result.content[0]?.text).toBe(JSON.stringify(result.structuredContent, null, 2));
      expect(textTokens(result)).toBeLessThanOrEqual(DEFAULT_TOKENS);
      expect(result.structuredContent.truncated).toMatchObject({ total: { series: 300 }, order: "highest" });
      // The busiest pods first, as the Python Lambda's callers expect of a cut.
      expect(result.structuredContent.result?.[0]?.metric.pod).toBe(topPodsByRate(1)[0]?.labels.pod);
      expect(result.structuredContent.result?.length).toBeGreaterThanOrEqual(10);
    });

    it("bounds ListMetrics with 20,002 names and marks it; limit takes the first names", async () => {
      const names = largeMetricNames();
      const { result } = await callTool("ListMetrics", {});
      const metrics = result.structuredContent.metrics ?? [];
      expect(textTokens(result)).toBeLessThanOrEqual(DEFAULT_TOKENS);
      expect(Object.keys(result.structuredContent)).toEqual(["truncated", "metrics"]);
      expect(metrics).toEqual(names.slice(0, metrics.length));
      expect(result.structuredContent.truncated).toMatchObject({
        cut_by: "size",
        total: { names: names.length },
        returned: { names: metrics.length },
      });
      const note = result.structuredContent.truncated?.note ?? "";
      expect(note).toContain(`${names.length.toLocaleString("en-US")} metric names`);
      // Advice names a filter by family, never a smaller limit.
      expect(note).toContain("synthetic_ (20,000)");
      expect(note).toContain('call ListMetrics with match {__name__=~"synthetic_.*"}');
      expect(note).not.toMatch(/smaller limit/);

      // Prometheus 2.42 ignores `limit` on label values: the whole list arrives and is cut here.
      const limited = await callTool("ListMetrics", { limit: "10" });
      expect(limited.result.structuredContent.metrics).toEqual(names.slice(0, 10));
      expect(limited.result.structuredContent.truncated).toMatchObject({
        cut_by: "limit",
        total: { names: names.length },
      });
      expect(limited.result.structuredContent.truncated?.total_is_lower_bound).toBeUndefined();
    });
  },
);
