import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RangeSeries, Sample } from "../support/cutResults.js";
import {
  CRASH_LOOP_RESTARTS,
  crashLoopingPod,
  errorService,
  LATENCY_BUCKETS,
  lowMemoryNode,
  nodesByAvailableMemory,
  ON_CALL_DATASET,
  ON_CALL_INCIDENTS,
  ON_CALL_METRIC_NAMES,
  ON_CALL_NAMESPACES,
  ON_CALL_NODES,
  ON_CALL_PODS,
  ON_CALL_QUESTIONS,
  ON_CALL_SERVICES,
  ON_CALL_UP_TARGETS,
  onCallOpenMetricsChunks,
  onCallSampleIndexAt,
  podsByMeanCpu,
  podsByRestartsToday,
  runawayPod,
  serviceErrorRatio,
  slowService,
  upAt,
} from "../support/onCallDataset.js";
import { prometheusAvailable, type RunningPrometheus, startPrometheus } from "../support/prometheus.js";

const { start, end } = ON_CALL_DATASET;
const HOUR = 3600;

describe.skipIf(!prometheusAvailable())("the on-call dataset loaded into a real Prometheus", () => {
  let prometheus: RunningPrometheus;

  beforeAll(async () => {
    const started = Date.now();
    prometheus = await startPrometheus({ openMetrics: onCallOpenMetricsChunks });
    console.info(`on-call dataset loaded into Prometheus in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 300_000); // promtool builds the dataset's blocks first: minutes on a busy 2-core machine

  afterAll(async () => {
    await prometheus?.close();
  });

  const api = <T>(path: string, params: Record<string, string | number>) => prometheus.api<T>(path, params);

  async function instant(query: string, time: number = end): Promise<Sample[]> {
    return (await api<{ result: Sample[] }>("query", { query, time })).result;
  }

  /** The single value of a one-series instant query. */
  async function scalar(query: string, time: number = end): Promise<number> {
    const result = await instant(query, time);
    expect(result, query).toHaveLength(1);
    return Number(result[0]?.value[1]);
  }

  function byLabel(samples: Sample[], label: string): Map<string, number> {
    return new Map(samples.map((s) => [s.metric[label] ?? "", Number(s.value[1])]));
  }

  it("has the metric names, and the series counts per metric the dataset declares", async () => {
    expect(await api<string[]>("label/__name__/values", {})).toEqual(ON_CALL_METRIC_NAMES);
    const counts = byLabel(await instant('count by (__name__) ({__name__=~".+"})'), "__name__");
    expect(Object.fromEntries(counts)).toEqual({
      node_memory_MemTotal_bytes: 20,
      node_memory_MemAvailable_bytes: 20,
      node_cpu_seconds_total: 60,
      container_cpu_usage_seconds_total: 200,
      container_memory_working_set_bytes: 200,
      container_memory_usage_bytes: 180,
      kube_pod_container_status_restarts_total: 200,
      up: 128,
      http_requests_total: 8 * 3 * 2 * 3,
      http_request_duration_seconds_bucket: 8 * 3 * LATENCY_BUCKETS.length,
      http_request_duration_seconds_sum: 24,
      http_request_duration_seconds_count: 24,
      planted_change_signal: 5,
      worker_queue_depth: 8,
    });
    expect(ON_CALL_NODES).toHaveLength(20);
    expect(ON_CALL_PODS).toHaveLength(200);
    expect(await scalar("count(count by (node) (node_memory_MemTotal_bytes))")).toBe(20);
    expect(await scalar("count(count by (namespace, pod) (container_cpu_usage_seconds_total))")).toBe(200);
    expect(await scalar("count(count by (node) (container_cpu_usage_seconds_total))")).toBe(20);
    expect(await scalar("count(count by (namespace) (container_cpu_usage_seconds_total))")).toBe(11);
    expect(await scalar("count(count by (job, instance) (up))")).toBe(ON_CALL_UP_TARGETS.length);
    expect(ON_CALL_UP_TARGETS).toHaveLength(128);
    expect(await scalar("count(count by (service) (http_requests_total))")).toBe(8);
    expect(await scalar("count(count by (service, pod) (http_request_duration_seconds_count))")).toBe(24);

    const namespaces = await api<string[]>("label/namespace/values", {});
    expect(namespaces).toEqual([...ON_CALL_NAMESPACES].sort());
    const services = await api<string[]>("label/service/values", {});
    expect(services).toEqual(ON_CALL_SERVICES.map((s) => s.service).sort());
    // Every pod of a service is one of the 200 pods, on one of the 20 nodes.
    const pods = new Set(ON_CALL_PODS.map((p) => p.pod));
    for (const s of ON_CALL_SERVICES) {
      expect(s.pods).toHaveLength(3);
      for (const pod of s.pods) expect(pods.has(pod), pod).toBe(true);
    }
    const nodes = new Set(ON_CALL_NODES.map((n) => n.node));
    expect(ON_CALL_PODS.every((p) => nodes.has(p.node))).toBe(true);
  });

  it("each series has a sample every 60 s from start to end", async () => {
    for (const name of ON_CALL_METRIC_NAMES) {
      // [1d] at end covers start … end: Prometheus 2.x includes both ends (3.x drops the sample at start).
      const counts = await instant(`count_over_time(${name}[1d])`);
      const values = new Set(counts.map((s) => Number(s.value[1])));
      expect([...values], name).toEqual([ON_CALL_DATASET.sampleCount]);
    }
    const first = await instant("timestamp(up)", start);
    expect(new Set(first.map((s) => Number(s.value[1])))).toEqual(new Set([start]));
  });

  it("the low-memory node has the least available memory at end, under 5 % of its total", async () => {
    const ratios = await instant("node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes");
    expect(ratios).toHaveLength(20);
    const sorted = ratios
      .map((s) => ({ node: s.metric.node, ratio: Number(s.value[1]) }))
      .sort((a, b) => a.ratio - b.ratio);
    expect(sorted[0]?.node).toBe(lowMemoryNode.node);
    expect(sorted[0]?.ratio).toBeLessThan(0.05);
    expect(sorted[0]?.ratio).toBeGreaterThan(0.01);
    // Every other node has 30–70 % available.
    for (const { ratio } of sorted.slice(1)) {
      expect(ratio).toBeGreaterThanOrEqual(0.3);
      expect(ratio).toBeLessThanOrEqual(0.7);
    }
    // The dataset's own computation agrees with Prometheus.
    const expected = nodesByAvailableMemory(end);
    expect(expected[0]?.node).toBe(lowMemoryNode.node);
    expect(sorted[0]?.ratio).toBeCloseTo(expected[0]?.ratio ?? Number.NaN, 12);
    // It was a normal node at the start of the day.
    const before = await instant(
      `node_memory_MemAvailable_bytes{node="${lowMemoryNode.node}"} / node_memory_MemTotal_bytes`,
      ON_CALL_INCIDENTS.lowMemory.start,
    );
    expect(Number(before[0]?.value[1])).toBeGreaterThan(0.3);
    expect(await scalar(`node_memory_MemTotal_bytes{node="${lowMemoryNode.node}"}`)).toBe(
      lowMemoryNode.memTotalBytes,
    );
  });

  it("the runaway pod has the highest CPU over the last hour, and every other pod stays under 1 core", async () => {
    const query = "sum by (namespace, pod) (rate(container_cpu_usage_seconds_total[1h]))";
    const rates = (await instant(query))
      .map((s) => ({ pod: s.metric.pod, namespace: s.metric.namespace, cores: Number(s.value[1]) }))
      .sort((a, b) => b.cores - a.cores);
    expect(rates).toHaveLength(200);
    expect(rates[0]).toMatchObject({ pod: runawayPod.pod, namespace: runawayPod.namespace });
    expect(rates[0]?.cores).toBeGreaterThan(3);
    expect(rates[1]?.cores).toBeLessThan(1);
    expect(podsByMeanCpu(onCallSampleIndexAt(end - HOUR), onCallSampleIndexAt(end))[0]?.pod).toBe(
      runawayPod.pod,
    );
    // No other pod reaches 1 core at any minute of the day either.
    const peaks = await instant(
      `max_over_time(sum by (namespace, pod) (rate(container_cpu_usage_seconds_total{pod!="${runawayPod.pod}"}[5m]))[1d:1m])`,
    );
    expect(Math.max(...peaks.map((s) => Number(s.value[1])))).toBeLessThan(1);
    // The runaway pod was an ordinary one before its incident.
    const before = await scalar(
      `sum(rate(container_cpu_usage_seconds_total{pod="${runawayPod.pod}"}[5m]))`,
      ON_CALL_INCIDENTS.runaway.start,
    );
    expect(before).toBeLessThan(1);
    // Its node is the low-memory one, and is the busiest node at the end.
    expect(runawayPod.node).toBe(lowMemoryNode.node);
    const busy = await instant(
      '1 - sum by (node) (rate(node_cpu_seconds_total{mode="idle"}[5m])) / sum by (node) (rate(node_cpu_seconds_total[5m]))',
    );
    const busiest = busy.sort((a, b) => Number(b.value[1]) - Number(a.value[1]))[0];
    expect(busiest?.metric.node).toBe(lowMemoryNode.node);
    expect(Number(busiest?.value[1])).toBeGreaterThan(0.9);
  });

  it("the crash-looping pod's target is down at end and flaps during the incident; every other target is always up", async () => {
    const target = { job: crashLoopingPod.job, instance: crashLoopingPod.instance };
    expect(ON_CALL_UP_TARGETS).toContainEqual(target);
    const matcher = `{job="${target.job}",instance="${target.instance}"}`;
    expect(await scalar(`up${matcher}`)).toBe(0);
    expect(upAt(target, end)).toBe(0);
    const { start: from, end: to } = ON_CALL_INCIDENTS.crashLoop;
    const range = await api<{ result: RangeSeries[] }>("query_range", {
      query: `up${matcher}`,
      start: from,
      end: to,
      step: 60,
    });
    const values = new Set(range.result[0]?.values.map(([, v]) => v));
    expect(values).toEqual(new Set(["0", "1"]));
    // Up all day before the incident.
    expect(await scalar(`min_over_time(up${matcher}[12h])`, from - 60)).toBe(1);
    // The 127 other targets never miss a scrape.
    const down = await instant(`min_over_time(up[1d]) < 1`);
    expect(down.map((s) => s.metric)).toEqual([{ job: target.job, instance: target.instance }]);
  });

  it("increase(restarts[1d]) is highest for the crash-looping pod", async () => {
    const increases = (await instant("increase(kube_pod_container_status_restarts_total[1d])"))
      .map((s) => ({ pod: s.metric.pod, namespace: s.metric.namespace, restarts: Number(s.value[1]) }))
      .sort((a, b) => b.restarts - a.restarts);
    expect(increases).toHaveLength(200);
    expect(increases[0]).toMatchObject({ pod: crashLoopingPod.pod, namespace: crashLoopingPod.namespace });
    // increase() extrapolates a little: about the 21 restarts of the loop.
    expect(increases[0]?.restarts).toBeGreaterThan(CRASH_LOOP_RESTARTS - 1);
    expect(increases[1]?.restarts).toBeLessThan(2);
    expect(podsByRestartsToday()[0]).toEqual({ ...increases[0], restarts: CRASH_LOOP_RESTARTS });
  });

  it("the error service has the highest 5xx ratio during its window, about 20 %", async () => {
    const { start: from, end: to } = ON_CALL_INCIDENTS.errors;
    const ratioQuery = (range: string) =>
      `sum by (service) (rate(http_requests_total{code="500"}[${range}])) / sum by (service) (rate(http_requests_total[${range}]))`;
    // Over the window (less its first minutes, while the errors ramp up), and at its end.
    for (const [query, time] of [
      [ratioQuery(`${(to - from - 300) / 60}m`), to],
      [ratioQuery("5m"), to],
    ] as const) {
      const ratios = [...byLabel(await instant(query, time), "service")].sort((a, b) => b[1] - a[1]);
      expect(ratios).toHaveLength(8);
      expect(ratios[0]?.[0]).toBe(errorService);
      expect(ratios[0]?.[1]).toBeGreaterThan(0.15);
      expect(ratios[0]?.[1]).toBeLessThan(0.25);
      expect(ratios[1]?.[1]).toBeLessThan(0.01);
    }
    const expected = serviceErrorRatio(
      errorService,
      onCallSampleIndexAt(from + 300),
      onCallSampleIndexAt(to),
    );
    expect(expected).toBeCloseTo(0.2, 1);
    // Before the window the error service was as healthy as the others.
    expect(Math.max(...byLabel(await instant(ratioQuery("1h"), from - 60), "service").values())).toBeLessThan(
      0.01,
    );
  });

  it("the slow service's p99 is over 2 s during its window, every other service's under 0.5 s all day", async () => {
    const { start: from, end: to } = ON_CALL_INCIDENTS.latency;
    const p99 =
      "histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket[5m])))";
    const range = await api<{ result: RangeSeries[] }>("query_range", {
      query: p99,
      start: start + 300,
      end: to,
      step: 60,
    });
    expect(range.result).toHaveLength(8);
    for (const series of range.result) {
      const service = series.metric.service ?? "";
      const inWindow = series.values.filter(([t]) => t >= from + 600).map(([, v]) => Number(v));
      const before = series.values.filter(([t]) => t < from).map(([, v]) => Number(v));
      if (service === slowService) {
        expect(Math.min(...inWindow), service).toBeGreaterThan(2);
        expect(Math.max(...inWindow), service).toBeLessThan(6);
        // ~200 ms before the incident.
        expect(Math.max(...before), service).toBeLessThan(0.3);
        expect(Math.min(...before), service).toBeGreaterThan(0.1);
      } else {
        expect(Math.max(...before, ...inWindow), service).toBeLessThan(0.5);
      }
    }
    // Per pod too: the slow service's 3 pods are the 3 slowest at the end.
    const perPod = (await instant("histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m]))"))
      .map((s) => ({ service: s.metric.service, p99: Number(s.value[1]) }))
      .sort((a, b) => b.p99 - a.p99);
    expect(perPod).toHaveLength(24);
    expect(perPod.slice(0, 3).map((s) => s.service)).toEqual([slowService, slowService, slowService]);
    expect(perPod[3]?.p99).toBeLessThan(0.5);
  });

  it("the slow service's histogram is cumulative in le and monotonic over time, and _count is the +Inf bucket", async () => {
    const range = await api<{ result: RangeSeries[] }>("query_range", {
      query: `{__name__=~"http_request_duration_seconds_(bucket|count)",service="${slowService}"}`,
      start,
      end,
      step: 60,
    });
    expect(range.result).toHaveLength(3 * (LATENCY_BUCKETS.length + 1));
    const wrong: string[] = [];
    const byPod = new Map<string, Map<string, number[]>>();
    for (const series of range.result) {
      const values = series.values.map(([, v]) => Number(v));
      expect(values).toHaveLength(ON_CALL_DATASET.sampleCount);
      const { pod = "", le = "count" } = series.metric;
      for (let i = 1; i < values.length; i++)
        if ((values[i] ?? 0) < (values[i - 1] ?? 0)) wrong.push(`${pod} le=${le} decreases at sample ${i}`);
      if (!byPod.has(pod)) byPod.set(pod, new Map());
      byPod.get(pod)?.set(le, values);
    }
    expect(byPod.size).toBe(3);
    for (const [pod, buckets] of byPod) {
      for (let b = 1; b < LATENCY_BUCKETS.length; b++) {
        const lower = buckets.get(LATENCY_BUCKETS[b - 1] ?? "") ?? [];
        const upper = buckets.get(LATENCY_BUCKETS[b] ?? "") ?? [];
        for (let i = 0; i < upper.length; i++)
          if ((upper[i] ?? 0) < (lower[i] ?? 0))
            wrong.push(`${pod} le=${LATENCY_BUCKETS[b]} < previous at sample ${i}`);
      }
      expect(buckets.get("count"), pod).toEqual(buckets.get("+Inf"));
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it("every on-call question is a valid query with a non-empty answer holding its expected outlier", async () => {
    expect(ON_CALL_QUESTIONS.length).toBeGreaterThanOrEqual(10);
    const sizes: string[] = [];
    for (const question of ON_CALL_QUESTIONS) {
      const { limit: _limit, ...params } = question.args;
      const path = question.tool === "ExecuteQuery" ? "query" : "query_range";
      const response = await fetch(`${prometheus.url}/api/v1/${path}?${new URLSearchParams(params)}`);
      const text = await response.text();
      expect(response.status, `${question.id}: ${text.slice(0, 300)}`).toBe(200);
      const body = JSON.parse(text) as { data: { resultType: string; result: (Sample | RangeSeries)[] } };
      expect(body.data.resultType, question.id).toBe(question.tool === "ExecuteQuery" ? "vector" : "matrix");
      expect(body.data.result.length, question.id).toBeGreaterThan(0);
      if (question.expectTop) {
        const { label, value } = question.expectTop;
        expect(
          body.data.result.some((s) => s.metric[label] === value),
          `${question.id}: no series with ${label}="${value}"`,
        ).toBe(true);
      }
      sizes.push(`${question.id}: ${body.data.result.length} series, ${text.length} bytes`);
    }
    console.info(`on-call questions' raw answers:\n  ${sizes.join("\n  ")}`);
  });
});
