import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DescribedSeries, Description } from "../../src/results/description.js";
import type { RangeSeries } from "../support/cutResults.js";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import {
  ON_CALL_DATASET,
  ON_CALL_PLANTED,
  onCallPlantedOpenMetricsChunks,
  type PlantedShape,
} from "../support/onCallDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";

const { start, end } = ON_CALL_DATASET;
const STEP = 60;
const range = { start, end, step: STEP };

/**
 * The planted change points of the on-call dataset (ON_CALL_PLANTED), loaded into a real Prometheus:
 * each series as Prometheus answers it over the day, described as a range answer is (Description, so
 * `item.change` is what the answer's table reads), and the default order of ExecuteRangeQuery.
 */
describe.skipIf(!prometheusAvailable())("change points of the planted series, from a real Prometheus", () => {
  let prometheus: RunningPrometheus;
  let handler: Handler;

  beforeAll(async () => {
    prometheus = await startPrometheus({ openMetrics: onCallPlantedOpenMetricsChunks });
    handler = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.close();
  });

  async function queryRange(query: string): Promise<RangeSeries[]> {
    const data = await prometheus.api<{ result: RangeSeries[] }>("query_range", {
      query,
      start,
      end,
      step: STEP,
    });
    return data.result;
  }

  /** Each series of the query's range answer, described as the tools describe it, by `label`. */
  async function described(query: string, label: string): Promise<Map<string, DescribedSeries>> {
    const description = new Description(
      { query, range, order: "unusual", form: "compact" },
      { tokens: 20_000, bytes: 1_000_000 },
    );
    for (const series of await queryRange(query)) expect(description.add(series)).toBe(true);
    const items = description.result("series").items as DescribedSeries[];
    return new Map(items.map((item) => [(item.metric as Record<string, string>)[label] ?? "", item]));
  }

  /** The first sample time, from `from` on, at which the series is above `threshold`, by Prometheus. */
  async function firstPast(selector: string, threshold: number, from: number = start): Promise<number> {
    const [series] = await queryRange(`timestamp(${selector} > ${threshold})`);
    const times = (series?.values ?? []).map(([, time]) => Number(time)).filter((t) => t >= from);
    expect(times.length, selector).toBeGreaterThan(0);
    return Math.min(...times);
  }

  it("finds every planted onset within two steps, and no change for the flat series nor the daily cycle", async () => {
    const signals = await described("planted_change_signal", "shape");
    const change = (shape: PlantedShape) => signals.get(shape)?.change;
    const { step, ramp, spike } = ON_CALL_PLANTED;

    // The step and the spike: where Prometheus's samples cross halfway between the levels.
    const stepSelector = 'planted_change_signal{shape="step"}';
    const stepOnset = await firstPast(stepSelector, (step.before + step.after) / 2);
    expect(stepOnset).toBe(step.at);
    expect(Math.abs((change("step")?.at ?? 0) - stepOnset)).toBeLessThanOrEqual(2 * STEP);
    expect(change("step")?.before).toBeCloseTo(step.before, 3);
    expect(change("step")?.after).toBeCloseTo(step.after, 3);
    expect(change("step")?.endedAt).toBeUndefined();

    const spikeSelector = 'planted_change_signal{shape="spike"}';
    const middle = (spike.before + spike.after) / 2;
    const spikeOnset = await firstPast(spikeSelector, middle);
    const spikeEnd = await firstPast(`-${spikeSelector}`, -middle, spikeOnset);
    expect([spikeOnset, spikeEnd]).toEqual([spike.at, spike.endedAt]);
    expect(Math.abs((change("spike")?.at ?? 0) - spikeOnset)).toBeLessThanOrEqual(2 * STEP);
    expect(Math.abs((change("spike")?.endedAt ?? 0) - spikeEnd)).toBeLessThanOrEqual(2 * STEP);
    expect(change("spike")?.after).toBeCloseTo(spike.after, 1);

    // The leak: level before it began (Prometheus's mean over the hours before), level at the end.
    const rampSelector = 'planted_change_signal{shape="ramp"}';
    expect(Math.abs((change("ramp")?.at ?? 0) - ramp.at)).toBeLessThanOrEqual(2 * STEP);
    const [baseline] = await prometheus
      .api<{ result: { value: [number, string] }[] }>("query", {
        query: `avg_over_time(${rampSelector}[12h])`,
        time: ramp.at - STEP,
      })
      .then((data) => data.result);
    const [last] = (await queryRange(rampSelector))[0]?.values.slice(-1) ?? [];
    const noise = 5 * ramp.noise;
    expect(Math.abs((change("ramp")?.before ?? 0) - Number(baseline?.value[1]))).toBeLessThan(noise);
    expect(Math.abs((change("ramp")?.after ?? 0) - Number(last?.[1]))).toBeLessThan(noise);

    expect(signals.get("flat")?.change).toBeUndefined();
    expect(signals.get("cycle")?.change).toBeUndefined();
    expect(signals.size).toBe(5);
  });

  it("ranks the worker whose queue stepped up an hour ago above the one at its usual, larger daily peak", async () => {
    const { larger, changed, workers } = ON_CALL_PLANTED.queue;
    const queues = await described("worker_queue_depth", "worker");
    expect(queues.size).toBe(workers);
    expect(Math.abs((queues.get(changed.worker)?.change?.at ?? 0) - changed.at)).toBeLessThanOrEqual(
      2 * STEP,
    );
    for (const [worker, item] of queues)
      if (worker !== changed.worker) expect(item.change, worker).toBeUndefined();
    // The larger cycle is what stands out by its values alone: its peak is the group's highest.
    const peaks = await prometheus.api<{ result: { metric: { worker: string }; value: [number, string] }[] }>(
      "query",
      { query: "topk(1, max_over_time(worker_queue_depth[1d]))", time: end },
    );
    expect(peaks.result.map((sample) => sample.metric.worker)).toEqual([larger.worker]);

    const http = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "ExecuteRangeQuery",
        arguments: {
          query: "worker_queue_depth",
          start: String(start),
          end: String(end),
          step: `${STEP}s`,
          limit: 2,
        },
      },
    });
    expect(http.statusCode).toBe(200);
    const { result } = JSON.parse(http.body) as {
      result: { structuredContent: { result: { metric: { worker: string } }[] } };
    };
    expect(result.structuredContent.result.map((series) => series.metric.worker)).toEqual([
      changed.worker,
      larger.worker,
    ]);
  });

  it("over the last two hours at a 5-minute step, reports the worker's step on the daily decline and nothing for the others", async () => {
    const { changed, workers } = ON_CALL_PLANTED.queue;
    const window = { start: end - 2 * 3600, end, step: 300 };
    // The window only sees the cycle's decline: every worker's queue falls over it, by Prometheus.
    const falls = await prometheus.api<{ result: unknown[] }>("query", {
      query: `worker_queue_depth offset 2h - worker_queue_depth > 0`,
      time: end,
    });
    expect(falls.result.length).toBeGreaterThanOrEqual(workers - 1);
    const http = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "ExecuteRangeQuery",
        arguments: {
          query: "worker_queue_depth",
          start: String(window.start),
          end: String(window.end),
          step: `${window.step}s`,
        },
      },
    });
    expect(http.statusCode).toBe(200);
    const { structuredContent } = (
      JSON.parse(http.body) as {
        result: {
          structuredContent: {
            series_stats: { columns: string[]; rows: unknown[][] };
          };
        };
      }
    ).result;
    const { columns, rows } = structuredContent.series_stats;
    const cell = (row: unknown[], column: string) => row[columns.indexOf(column)];
    expect(rows).toHaveLength(workers);
    const changedAt = new Map(rows.map((row) => [cell(row, "worker"), cell(row, "changed_at")]));
    const at = Date.parse(String(changedAt.get(changed.worker))) / 1000;
    expect(Math.abs(at - changed.at)).toBeLessThanOrEqual(2 * window.step);
    for (const [worker, time] of changedAt)
      if (worker !== changed.worker) expect(time, String(worker)).toBeNull();
    // The table ranks it first (an answer that fits whole keeps Prometheus's order of curves).
    expect(cell(rows[0] ?? [], "worker")).toBe(changed.worker);
  });
});
