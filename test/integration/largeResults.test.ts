import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESPONSE_LIMIT_BYTES } from "../../src/routes/ceiling.js";
import { type Handler, type HttpResult, makeHandler, postMcp } from "../helpers/handler.js";
import {
  CPU_METRIC,
  LARGE_DATASET,
  largeMetricNames,
  largeOpenMetricsChunks,
  MEMORY_METRIC,
  topPodsByRate,
} from "../support/largeDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";

const { start, end } = LARGE_DATASET;
/** CPU by pod over the last day: 300 series × 1,436 points, about 11.7 MB from Prometheus. */
const CPU_BY_POD = {
  query: `rate(${CPU_METRIC}[5m])`,
  start: String(start + 300),
  end: String(end),
  step: "60s",
};
const DEFAULT_BUDGET = 100_000;

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent: Record<string, unknown> & {
    result?: { metric: Record<string, string>; values?: [number, string][] }[];
    metrics?: string[];
    truncated?: {
      cut_by: string;
      total: Record<string, number>;
      returned: Record<string, number>;
      order: string;
      total_is_lower_bound?: boolean;
    };
  };
  isError?: boolean;
}

/** Bytes of the payload Lambda would send back for this HTTP result. */
const payloadBytes = (result: HttpResult) => Buffer.byteLength(JSON.stringify(result), "utf8");
const textBytes = (result: ToolResult) =>
  result.content.reduce((sum, item) => sum + Buffer.byteLength(item.text, "utf8"), 0);

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

    async function prometheusData(path: string, params: Record<string, string>): Promise<unknown> {
      const response = await fetch(`${prometheus.url}/api/v1/${path}?${new URLSearchParams(params)}`);
      return ((await response.json()) as { data: unknown }).data;
    }

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

    it("cuts CPU by pod over a day to the budget: the busiest real series whole, marked, with the totals", async () => {
      const { http, result } = await callTool("ExecuteRangeQuery", CPU_BY_POD);
      expect(result.isError).toBeUndefined();
      expect(payloadBytes(http)).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
      expect(textBytes(result)).toBeLessThanOrEqual(DEFAULT_BUDGET);

      const data = result.structuredContent;
      const series = data.result ?? [];
      expect(data.resultType).toBe("matrix");
      expect(data.truncated).toMatchObject({
        cut_by: "size",
        total: { series: 300, points: 300 * 1436 },
        returned: { series: series.length },
      });
      expect(data.truncated?.total.bytes).toBeGreaterThan(10_000_000);
      // One pod's day at 60 s is ~40 KB of JSON: two fit in the default budget.
      expect(series.length).toBeGreaterThanOrEqual(2);
      expect(series.length).toBeLessThan(300);
      // The busiest pods, busiest first, each exactly as Prometheus has it.
      const whole = (await prometheusData("query_range", CPU_BY_POD)) as { result: typeof series };
      const busiest = topPodsByRate(series.length).map((s) => s.labels.pod);
      expect(series.map((s) => s.metric.pod)).toEqual(busiest);
      for (const returned of series) {
        expect(whole.result.find((s) => s.metric.pod === returned.metric.pod)).toEqual(returned);
      }
      // The text is the same data, compact; the note says what was cut and what to do.
      expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(data);
      const note = result.content[1]?.text ?? "";
      expect(note).toContain(`300 series, ${series.length} returned`);
      expect(note).toMatch(
        /sum by \((namespace|pod|container)\) \(rate\(container_cpu_usage_seconds_total\[5m\]\)\)/,
      );
      expect(note).toContain("topk(10, rate(container_cpu_usage_seconds_total[5m]))");
      expect(note).toContain("larger step than 60s");
    });

    it("returns a small answer whole, unmarked, exactly as Prometheus does", async () => {
      const args = { query: MEMORY_METRIC, time: String(end) };
      const { result } = await callTool("ExecuteQuery", args);
      expect(result.structuredContent).toEqual(await prometheusData("query", args));
      expect(result.structuredContent.truncated).toBeUndefined();
      expect(result.content).toHaveLength(1);
    });

    it("limit returns exactly that many series, the largest, and says the limit cut them", async () => {
      const roomy = makeHandler({
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        MAX_RESULT_BYTES: "1000000",
      });
      const { result } = await callTool("ExecuteRangeQuery", { ...CPU_BY_POD, limit: 5 }, roomy);
      const series = result.structuredContent.result ?? [];
      expect(series.map((s) => s.metric.pod)).toEqual(topPodsByRate(5).map((s) => s.labels.pod));
      expect(result.structuredContent.truncated).toMatchObject({
        cut_by: "limit",
        total: { series: 300 },
        returned: { series: 5 },
      });
      expect(result.content[1]?.text).toContain("Cut to limit=5: 300 series, 5 returned");
      const instant = await callTool("ExecuteQuery", {
        query: CPU_BY_POD.query,
        time: String(end),
        limit: "3",
      });
      expect(instant.result.structuredContent.result?.map((s) => s.metric.pod)).toEqual(
        topPodsByRate(3).map((s) => s.labels.pod),
      );
    });

    it("a limit above what exists changes nothing", async () => {
      const args = { query: MEMORY_METRIC, time: String(end) };
      const { result } = await callTool("ExecuteQuery", { ...args, limit: 50 });
      expect(result.structuredContent).toEqual(await prometheusData("query", args));
    });

    it("keeps a batch of eight such calls within one Lambda response, each cut to its share", async () => {
      const batch = Array.from({ length: 8 }, (_, id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "ExecuteRangeQuery", arguments: { ...CPU_BY_POD, step: `${60 + id}s` } },
      }));
      const http = await postMcp(
        makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none", MAX_RESULT_BYTES: "2000000" }),
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
      expect(textBytes(result)).toBeLessThanOrEqual(DEFAULT_BUDGET);
      expect(result.structuredContent.truncated?.total.series).toBe(300);
    });

    it("bounds ListMetrics with 20,002 names and marks it; limit takes the first names", async () => {
      const names = largeMetricNames();
      const { result } = await callTool("ListMetrics", {});
      const metrics = result.structuredContent.metrics ?? [];
      expect(textBytes(result)).toBeLessThanOrEqual(DEFAULT_BUDGET);
      expect(metrics).toEqual(names.slice(0, metrics.length));
      expect(result.structuredContent.truncated).toMatchObject({
        cut_by: "size",
        total: { names: names.length },
        returned: { names: metrics.length },
      });
      expect(result.content[1]?.text).toContain(`${names.length.toLocaleString("en-US")} metric names`);

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
