import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rfc3339, rounded } from "../../src/results/numbers.js";
import {
  type CutValue,
  plainStats,
  type QueryData,
  type RangeSeries,
  type SeriesTableValue,
  sameStatistic,
  tableSeries,
  tableValue,
} from "../support/cutResults.js";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import { ON_CALL_QUESTIONS, onCallOpenMetricsChunks } from "../support/onCallDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";
import { realTokens } from "../support/tokenizers.js";

const BUDGET = 20_000;

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent: CutValue;
  isError?: boolean;
}

function labelsKey(labels: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Asserts that a lean `series_stats` stands for exactly Prometheus's series (collapsed rows and lookups
 * expanded), each with the statistics of its values (a range) or its value (a vector), rounded.
 */
function expectTableOf(table: SeriesTableValue, prometheusData: QueryData): void {
  const original = new Map(
    (prometheusData.result as Array<{ metric: Record<string, string> }>).map((series) => [
      labelsKey(series.metric),
      series,
    ]),
  );
  const series = tableSeries(table);
  expect(series).toHaveLength(original.size);
  expect(new Set(series.map(({ labels }) => labelsKey(labels)))).toEqual(new Set(original.keys()));
  for (const { labels, cells } of series) {
    const key = labelsKey(labels);
    const one = original.get(key);
    if (prometheusData.resultType === "matrix") {
      const want = plainStats((one as RangeSeries).values);
      expect(sameStatistic(tableValue(cells.min), want.min), `${key} min`).toBe(true);
      expect(sameStatistic(tableValue(cells.max), want.max), `${key} max`).toBe(true);
      expect(sameStatistic(tableValue(cells.avg), want.avg, 1e-9), `${key} avg`).toBe(true);
      expect(sameStatistic(tableValue(cells.last), want.last), `${key} last`).toBe(true);
      expect(cells.samples, `${key} samples`).toBe(want.samples);
      expect(cells.max_at, `${key} max_at`).toBe(rfc3339(want.maxAt));
    } else {
      const sample = (one as unknown as { value: [number, string] }).value;
      expect(sameStatistic(tableValue(cells.value), Number(sample[1])), key).toBe(true);
    }
  }
}

/**
 * The on-call questions of the realistic dataset (20 nodes, 200 pods in 11 namespaces, 8 services, a
 * day at 60 s, planted outliers), asked through the handler at the default budget, each answer checked
 * against Prometheus's whole answer fetched directly.
 */
describe.skipIf(!prometheusAvailable())("on-call questions answered within the token budget", () => {
  let prometheus: RunningPrometheus;
  let handler: Handler;

  beforeAll(async () => {
    prometheus = await startPrometheus({ openMetrics: onCallOpenMetricsChunks });
    handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
  }, 300_000); // promtool builds the dataset's blocks first: minutes on a busy 2-core machine

  afterAll(async () => {
    await prometheus?.close();
  });

  /** Prometheus's whole answer to a question, asked directly (without the tool's own arguments). */
  function whole(path: string, args: Record<string, string>) {
    const { limit: _limit, order: _order, ...params } = args;
    return prometheus.api<{ resultType: string; result: unknown[] }>(path, params);
  }

  async function ask(tool: string, args: Record<string, string>): Promise<ToolResult> {
    const http = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: tool, arguments: args },
    });
    expect(http.statusCode).toBe(200);
    const { result } = JSON.parse(http.body) as { result: ToolResult };
    expect(result.isError, result.content[0]?.text).toBeUndefined();
    return result;
  }

  it.each(ON_CALL_QUESTIONS.map((question) => [question.id, question] as const))(
    "%s",
    async (_id, question) => {
      const result = await ask(question.tool, question.args);
      const text = result.content.map((item) => item.text).join("");
      const tokens = realTokens(text);
      // Within the budget by both tokenizers.
      expect(tokens.claude).toBeLessThanOrEqual(BUDGET);
      expect(tokens.o200k).toBeLessThanOrEqual(BUDGET);
      const value = result.structuredContent;
      expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(value);
      const prometheusData = await whole(
        question.tool === "ExecuteQuery" ? "query" : "query_range",
        question.args,
      );
      console.info(
        `${question.id}: ${Buffer.byteLength(text)} bytes, ${tokens.claude} Claude / ${tokens.o200k} o200k tokens, ` +
          (value.truncated
            ? `cut (${value.truncated.cut_by}): ${value.result.length} of ${prometheusData.result.length} in result, ` +
              `${value.series_stats?.rows.length} rows, step ${value.truncated.downsampled?.returned_step_seconds ?? "as asked"}`
            : "whole"),
      );
      // More than one series: the table has every one of them, cut or not (its rows checked below).
      const table = value.series_stats;
      if (prometheusData.result.length > 1) {
        if (table === undefined) throw new Error("an answer of more than one series has series_stats");
        expectTableOf(table, prometheusData);
      }
      if (value.truncated === undefined) {
        // Whole: every point of every series, values rounded.
        expect(value.resultType).toBe(prometheusData.resultType);
        expect(queryPoints(value)).toEqual(
          queryPoints(prometheusData).map(({ metric, points }) => ({
            metric,
            points: points.map(([time, sample]) => [time, rounded(sample)]),
          })),
        );
        return;
      }
      // The marker and its note are the first key; the note is the only text item.
      expect(Object.keys(value)[0]).toBe("truncated");
      expect(result.content[0]?.text.startsWith('{"truncated":{"note":"')).toBe(true);
      expect(result.content).toHaveLength(1);
      // A cut by size that left something out uses the budget: at least 80% of it by one tokenizer. (A
      // cut can leave out nothing but runs of equal values and digits past the fifth: `up` over 6 h.)
      const leftOut =
        value.truncated.rows_missing !== undefined ||
        value.truncated.downsampled !== undefined ||
        value.result.length < prometheusData.result.length;
      if (value.truncated.cut_by === "size" && leftOut) {
        expect(Math.max(tokens.claude, tokens.o200k)).toBeGreaterThanOrEqual(0.8 * BUDGET);
      }
      // Every series in view: none missing from the table.
      expect(table).toBeDefined();
      expect(value.truncated.rows_missing).toBeUndefined();
      const original = new Map(
        (prometheusData.result as RangeSeries[]).map((series) => [labelsKey(series.metric), series]),
      );
      // Curves: at least 10 (or all, or the limit), each with at least 48 points where it had them (but
      // a flat one).
      const limit =
        question.args.limit === undefined ? Number.POSITIVE_INFINITY : Number(question.args.limit);
      expect(value.result.length).toBeGreaterThanOrEqual(Math.min(10, prometheusData.result.length, limit));
      if (value.resultType === "matrix") {
        for (const curve of value.result as RangeSeries[]) {
          const series = original.get(labelsKey(curve.metric));
          if ((series?.values.length ?? 0) >= 48)
            expect(queryPoints({ ...value, result: [curve] })[0]?.points.length).toBeGreaterThanOrEqual(48);
        }
      }
      // The planted outlier is among the returned series under the default order.
      if (question.expectTop) {
        const { label, value: wanted } = question.expectTop;
        const returned = (value.result as Array<{ metric: Record<string, string> }>).map(
          (s) => s.metric[label],
        );
        expect(returned, question.expectTop.why).toContain(wanted);
      }
    },
    60_000,
  );
});
