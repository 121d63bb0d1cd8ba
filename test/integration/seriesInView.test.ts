import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CutValue, type SeriesTableValue, tableSeries } from "../support/cutResults.js";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import { ON_CALL_DATASET, ON_CALL_FLEET, onCallFleetOpenMetricsChunks } from "../support/onCallDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";
import { realTokens } from "../support/tokenizers.js";

const { start, end } = ON_CALL_DATASET;
/** The dataset's own interval: what an on-call engineer asks for a day at full resolution. */
const STEP = 60;
const BUDGET_TOKENS = 20_000;
/** An RFC 3339 UTC time as the server writes it (a fraction only when not whole). */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const TIME_COLUMNS = ["max_at", "changed_at", "ended_at"];

interface Answer {
  text: string;
  value: CutValue & { range?: { start: string; end: string; step_seconds: number } };
}

/**
 * Issue 38, item 4: a day of memory of the on-call dataset's 180-pod fleet (long labels: an image per
 * container, an instance per node), asked of ExecuteRangeQuery through the handler at the default budget
 * against a real Prometheus: every series has its row, and the curves get the room the lean table saves.
 */
describe.skipIf(!prometheusAvailable())("every series in view: a day of memory of 180 pods", () => {
  let prometheus: RunningPrometheus;
  let handler: Handler;
  /** Every series' labels, as Prometheus's /api/v1/series reports them, by pod. */
  let stored: Map<string, Record<string, string>>;

  beforeAll(async () => {
    prometheus = await startPrometheus({ openMetrics: onCallFleetOpenMetricsChunks });
    handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
    const series = await prometheus.api<Record<string, string>[]>("series", {
      "match[]": ON_CALL_FLEET.metric,
      start,
      end,
    });
    stored = new Map(series.map((labels) => [labels.pod ?? "", labels]));
  }, 300_000); // promtool builds the dataset's blocks first: minutes on a busy 2-core machine

  afterAll(async () => {
    await prometheus?.close();
  });

  async function ask(extra: Record<string, unknown> = {}): Promise<Answer> {
    const http = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "ExecuteRangeQuery",
        arguments: {
          query: ON_CALL_FLEET.metric,
          start: String(start),
          end: String(end),
          step: `${STEP}s`,
          ...extra,
        },
      },
    });
    expect(http.statusCode).toBe(200);
    const { result } = JSON.parse(http.body) as {
      result: { isError?: boolean; content: { text: string }[]; structuredContent: Answer["value"] };
    };
    expect(result.isError, http.body.slice(0, 300)).toBeUndefined();
    const text = result.content.map((item) => item.text).join("\n");
    expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(result.structuredContent);
    return { text, value: result.structuredContent };
  }

  /** The table stands for every stored series, each with exactly the labels Prometheus reports. */
  function expectEverySeries(table: SeriesTableValue | undefined): void {
    expect(table).toBeDefined();
    const series = tableSeries(table as SeriesTableValue);
    const byPod = new Map(series.map(({ labels }) => [labels.pod as string, labels]));
    expect(stored.size).toBe(ON_CALL_FLEET.pods.length);
    expect(series).toHaveLength(stored.size);
    expect(Object.fromEntries(byPod)).toEqual(Object.fromEntries(stored));
  }

  function expectTimesRfc3339(value: Answer["value"]): void {
    const table = value.series_stats as SeriesTableValue;
    const timeCells = tableSeries(table).flatMap(({ cells }) =>
      TIME_COLUMNS.filter((name) => Object.hasOwn(cells, name)).map((name) => cells[name]),
    );
    expect(timeCells.length).toBeGreaterThan(0);
    for (const cell of timeCells) if (cell !== null) expect(cell).toMatch(RFC_3339);
    expect(timeCells.some((cell) => cell !== null)).toBe(true);
    expect(value.range?.start).toBe(new Date(start * 1000).toISOString().replace(".000Z", "Z"));
    expect(value.range?.end).toBe(new Date(end * 1000).toISOString().replace(".000Z", "Z"));
  }

  it("holds a row for each of the 180 series and at least 10 curves of at least 48 points, within 20,000 tokens", async () => {
    const { text, value } = await ask();
    expectEverySeries(value.series_stats);
    expect(value.truncated?.rows_missing).toBeUndefined();

    const curves = queryPoints(value);
    expect(curves.length).toBeGreaterThanOrEqual(10);
    // A bucket's two extremes are two points (as `truncated.returned.points` counts them).
    const fewest = Math.min(...curves.map(({ points }) => points.length));
    expect(fewest).toBeGreaterThanOrEqual(48);
    expect(curves.reduce((sum, { points }) => sum + points.length, 0)).toBe(value.truncated?.returned.points);
    // Each curve is one of the stored series, with all its labels.
    for (const { metric } of curves) expect(metric).toEqual(stored.get(metric.pod ?? ""));

    const tokens = realTokens(text);
    expect(tokens.claude).toBeLessThanOrEqual(BUDGET_TOKENS);
    expect(tokens.o200k).toBeLessThanOrEqual(BUDGET_TOKENS);
    expectTimesRfc3339(value);
  });

  it("writes each container's image and namespace under it, and each instance's node under it, once", async () => {
    const { value } = await ask({ summary: true });
    const table = value.series_stats as SeriesTableValue;
    // The documented rule (labelColumns.ts): fewest values first, each under the first column that
    // determines it; instance and node have as many values, instance comes first by name and keys node;
    // namespace, taken before container, moves under it.
    for (const { container, image, namespace, node, instance } of ON_CALL_FLEET.pods) {
      expect(table.label_lookup?.container?.[container]).toEqual({ image, namespace });
      expect(table.label_lookup?.instance?.[instance]).toEqual({ node });
    }
    expect(Object.keys(table.label_lookup ?? {}).sort()).toEqual(["container", "instance"]);
    expect(table.columns.slice(0, 3)).toEqual(["pod", "instance", "container"]);
    expect(table.common_labels).toEqual({ __name__: ON_CALL_FLEET.metric, job: ON_CALL_FLEET.job });
  });

  it("summary: true returns the whole table alone, with its range in RFC 3339", async () => {
    const { text, value } = await ask({ summary: true });
    expect(Object.keys(value)).toEqual(["resultType", "range", "series_stats"]);
    expect(value.range).toEqual({
      start: new Date(start * 1000).toISOString().replace(".000Z", "Z"),
      end: new Date(end * 1000).toISOString().replace(".000Z", "Z"),
      step_seconds: STEP,
    });
    expectEverySeries(value.series_stats);
    expectTimesRfc3339(value);
    const full = realTokens((await ask()).text);
    const summary = realTokens(text);
    expect(summary.claude).toBeLessThan(full.claude);
    expect(summary.o200k).toBeLessThan(full.o200k);
  });
});
