import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RangeSeries, Sample } from "../support/cutResults.js";
import {
  CPU_METRIC,
  CPU_SERIES,
  expectedCpuRate,
  LARGE_DATASET,
  largeMetricNames,
  largeOpenMetricsChunks,
  MEMORY_SERIES,
  topPodsByRate,
} from "../support/largeDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";

const { start, end } = LARGE_DATASET;
const RATE = `rate(${CPU_METRIC}[5m])`;

describe.skipIf(!prometheusAvailable())("the large dataset loaded into a real Prometheus", () => {
  let prometheus: RunningPrometheus;

  beforeAll(async () => {
    prometheus = await startPrometheus({ openMetrics: largeOpenMetricsChunks });
  });

  afterAll(async () => {
    await prometheus?.close();
  });

  const api = <T>(path: string, params: Record<string, string | number>) => prometheus.api<T>(path, params);

  it("a range query of the CPU rate over the whole day has every series, each at its pod's rate", async () => {
    // From start + 5m on, every window holds 6 samples of a linear counter: rate() is the slope.
    const data = await api<{ result: RangeSeries[] }>("query_range", {
      query: RATE,
      start: start + 300,
      end,
      step: 60,
    });
    expect(data.result).toHaveLength(CPU_SERIES.length);
    expect(data.result.map((s) => s.metric).sort(byPod)).toEqual(
      CPU_SERIES.map(({ labels: { __name__, ...labels } }) => labels).sort(byPod),
    );
    // 430k points: one expect per point would take seconds, so collect the mismatches instead.
    const wrong: string[] = [];
    for (const series of data.result) {
      const pod = series.metric.pod ?? "";
      const rate = expectedCpuRate(pod);
      if (series.values.length !== (end - start - 300) / 60 + 1)
        wrong.push(`${pod}: ${series.values.length} points`);
      for (const [t, value] of series.values)
        if (Math.abs(Number(value) - rate) > 1e-9) wrong.push(`${pod} at ${t}: ${value}, not ${rate}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it("topk of the CPU rate names the pods the dataset says have the largest rates", async () => {
    const data = await api<{ result: Sample[] }>("query", { query: `topk(5, ${RATE})`, time: end });
    const top = data.result
      .map((s) => ({ pod: s.metric.pod, rate: Number(s.value[1]) }))
      .sort((a, b) => b.rate - a.rate);
    expect(top.map((s) => s.pod)).toEqual(topPodsByRate(5).map((s) => s.labels.pod));
  });

  it("the memory gauge has a handful of series with the dataset's values", async () => {
    const data = await api<{ result: Sample[] }>("query", { query: "node_memory_usage_bytes", time: end });
    expect(data.result.sort(byNode)).toEqual(
      MEMORY_SERIES.map((s) => ({
        metric: s.labels,
        value: [end, String(s.value(LARGE_DATASET.sampleCount - 1))],
      })),
    );
  });

  it("the metric names are exactly the exported list, in order", async () => {
    const names = await api<string[]>("label/__name__/values", {});
    const expected = largeMetricNames();
    expect(names.length).toBeGreaterThan(20_000);
    expect(names).toHaveLength(expected.length);
    expect(names).toEqual(expected);
  });
});

function byPod(a: Record<string, string>, b: Record<string, string>): number {
  return (a.pod ?? "").localeCompare(b.pod ?? "");
}

function byNode(a: Sample, b: Sample): number {
  return (a.metric.node ?? "").localeCompare(b.metric.node ?? "");
}
