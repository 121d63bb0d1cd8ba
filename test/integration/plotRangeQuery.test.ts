import { decode } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH } from "../../src/charts/render.js";
import { type SeriesTableValue, tableSeries } from "../support/cutResults.js";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
  WHOLE_DATASET_RANGE,
} from "../support/prometheus.js";

// PlotRangeQuery through the handler against a real Prometheus (the test dataset).

const sortedEntries = (labels: Record<string, unknown>) =>
  Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

interface Content {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
}
interface CallResult {
  content: Content[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe.skipIf(!prometheusAvailable())("PlotRangeQuery against a real Prometheus", () => {
  let prometheus: RunningPrometheus;
  let handler: Handler;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
  }, 120_000);

  afterAll(async () => {
    await prometheus?.close();
  });

  async function plot(args: Record<string, unknown>, on: Handler = handler): Promise<CallResult> {
    const http = await postMcp(on, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "PlotRangeQuery", arguments: args },
    });
    expect(http.statusCode).toBe(200);
    return (JSON.parse(http.body) as { result: CallResult }).result;
  }

  it("answers an image of the chart, then what it shows as text (the structured content too)", async () => {
    const result = await plot({ ...WHOLE_DATASET_RANGE, title: "The test dataset" });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const [image, text] = result.content as [Content, Content];
    expect(image.type).toBe("image");
    expect(image.mimeType).toBe("image/png");
    const png = decode(Buffer.from(image.data as string, "base64"));
    expect([png.width, png.height]).toStrictEqual([CHART_WIDTH, CHART_HEIGHT]);
    expect(text.type).toBe("text");
    const facts = JSON.parse(text.text as string) as {
      chart: { series: number; lines: string[]; in_band: number; step: number; start: number; end: number };
      series_stats: SeriesTableValue;
    };
    expect(result.structuredContent).toStrictEqual(facts);
    expect(facts.chart).toMatchObject({
      series: 4,
      in_band: 0,
      step: 15,
      start: DATASET.start,
      end: DATASET.end,
    });
    expect(facts.chart.lines).toHaveLength(4);
    // The lean table: a row per line (rows may collapse, a column equal in every row written once in `same`).
    const upstream = await prometheus.api<{ result: Array<{ metric: Record<string, string> }> }>(
      "query_range",
      WHOLE_DATASET_RANGE,
    );
    const rows = tableSeries(facts.series_stats);
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map(({ labels }) => JSON.stringify(sortedEntries(labels))))).toStrictEqual(
      new Set(upstream.result.map(({ metric }) => JSON.stringify(sortedEntries(metric)))),
    );
    // Each row's samples: the dataset's, one per 15 s over its hour.
    for (const { cells } of rows) {
      expect(Object.keys(cells).sort()).toStrictEqual([
        "after",
        "avg",
        "before",
        "changed_at",
        "last",
        "max",
        "max_at",
        "min",
        "samples",
      ]);
      expect(cells.samples).toBe(DATASET.sampleCount);
    }
  });

  it("`limit` bounds the series drawn, the first ones in `order`; the lines' statistics follow", async () => {
    const facts = async (args: Record<string, unknown>) =>
      (await plot({ ...WHOLE_DATASET_RANGE, ...args })).structuredContent as {
        chart: { series: number; lines: string[]; in_band: number; order: string };
        series_stats: SeriesTableValue;
      };
    const all = await facts({ order: "highest" });
    const two = await facts({ order: "highest", limit: 2 });
    expect(all.chart.lines).toHaveLength(4);
    // The series matched are still said; two are drawn, the first two of the same order.
    expect(two.chart).toMatchObject({ series: 4, in_band: 0, order: "highest" });
    // The two highest (the request counters), labelled by what tells the two drawn apart.
    expect(all.chart.lines.slice(0, 2)).toStrictEqual([
      'test_requests_total{instance="a", job="api"}',
      'test_requests_total{instance="b", job="api"}',
    ]);
    expect(two.chart.lines).toStrictEqual(['{instance="a"}', '{instance="b"}']);
    expect(tableSeries(two.series_stats)).toHaveLength(2);
    const bad = await plot({ ...WHOLE_DATASET_RANGE, limit: "0" });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/limit/);
  });

  it("a query that matches nothing is a text answer with its hint: not an error, not an empty chart", async () => {
    const result = await plot({ ...WHOLE_DATASET_RANGE, query: 'up{job="no-such-job"}' });
    expect(result.isError).toBeFalsy();
    expect(result.content.every((item) => item.type === "text")).toBe(true);
    expect(JSON.parse(result.content[0]?.text as string)).toMatchObject({ resultType: "matrix", result: [] });
    expect(result.content.length).toBeGreaterThanOrEqual(1);
  });

  it("a single series is labelled by the query, or the title given: never {}", async () => {
    const query = "sum(rate(test_requests_total[1m]))";
    const lines = async (args: Record<string, unknown>) =>
      (
        (await plot({ ...WHOLE_DATASET_RANGE, query, ...args })).structuredContent as {
          chart: { lines: string[] };
        }
      ).chart.lines;
    expect(await lines({})).toStrictEqual([query]);
    expect(await lines({ title: "Requests per second" })).toStrictEqual(["Requests per second"]);
  });

  it("thresholds are drawn and said in the text; bad ones are clear tool errors", async () => {
    const result = await plot({ ...WHOLE_DATASET_RANGE, thresholds: [{ value: 0.5, label: "alert" }, 2] });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const facts = result.structuredContent as { chart: { thresholds: unknown } };
    expect(facts.chart.thresholds).toStrictEqual([{ value: 0.5, label: "alert" }, { value: 2 }]);
    const plain = (await plot(WHOLE_DATASET_RANGE)).structuredContent as { chart: object };
    expect(plain.chart).not.toHaveProperty("thresholds");
    for (const [thresholds, message] of [
      [[1, 2, 3, 4, 5, 6], /thresholds takes at most 5 values/],
      [[{ value: "high" }], /each a number or \{"value": 0.9, "label": "alert"\}/],
      [[{ value: 1, label: "x".repeat(41) }], /at most 40 characters/],
    ] as const) {
      const bad = await plot({ ...WHOLE_DATASET_RANGE, thresholds });
      expect(bad.isError).toBe(true);
      expect(bad.content[0]?.text).toMatch(message);
    }
  });

  it("a title that is not a string is a clear tool error", async () => {
    const result = await plot({ ...WHOLE_DATASET_RANGE, title: { not: "a string" } });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/title must be a string/);
  });

  it("is not offered under PYTHON_COMPAT unless TOOLS asks for it", async () => {
    const names = async (env: Record<string, string>) => {
      const http = await postMcp(
        makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none", ...env }),
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
        },
      );
      return (JSON.parse(http.body) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
        (tool) => tool.name,
      );
    };
    expect(await names({})).toContain("PlotRangeQuery");
    expect(await names({ PYTHON_COMPAT: "true" })).not.toContain("PlotRangeQuery");
    expect(await names({ PYTHON_COMPAT: "true", TOOLS: "core,charts" })).toContain("PlotRangeQuery");
  });
});
