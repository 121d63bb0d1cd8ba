/**
 * A large deterministic dataset for the test Prometheus (`startPrometheus({ openMetrics: largeOpenMetricsChunks })`):
 *
 * - `container_cpu_usage_seconds_total` (counter): 5 namespaces x 60 pods = 300 series, `container="app"`,
 *   one sample every 60 s for 24 h (1441 samples each). Each series is exactly linear, so
 *   `rate(container_cpu_usage_seconds_total[5m])` at any time from `start + 300` to `end` equals the pod's
 *   `ratePerSecond` (up to float rounding: compare with `toBeCloseTo`). Every pod's rate is different.
 * - `node_memory_usage_bytes` (gauge): 3 series (`node="node-0"` … `"node-2"`), same timestamps.
 * - 20,000 gauges `synthetic_metric_00000` … `synthetic_metric_19999`, no labels, two samples each (at
 *   `start` and at `end`), so `/api/v1/label/__name__/values` lists 20,002 names.
 *
 * Values are multiples of 1/64 (CPU) or integers (memory, synthetic), so the text is exact.
 */

/** Time range: sample i is at `start + i * intervalSeconds`, i = 0 … sampleCount - 1 (both ends included). */
export const LARGE_DATASET = {
  start: 1_700_000_000,
  end: 1_700_086_400,
  intervalSeconds: 60,
  sampleCount: 1441,
} as const;

export const CPU_METRIC = "container_cpu_usage_seconds_total";
export const MEMORY_METRIC = "node_memory_usage_bytes";

export const NAMESPACES = ["checkout", "frontend", "inventory", "payments", "search"] as const;
export const PODS_PER_NAMESPACE = 60;
export const MEMORY_NODES = ["node-0", "node-1", "node-2"] as const;
export const SYNTHETIC_METRIC_COUNT = 20_000;

export interface CpuSeries {
  /** Full label set as Prometheus returns it in `metric` (including `__name__`). */
  labels: { __name__: typeof CPU_METRIC; container: "app"; namespace: string; pod: string };
  /** The slope of the counter, i.e. what `rate(...[5m])` returns for this series. */
  ratePerSecond: number;
  /** The counter's value at sample index i. */
  value(i: number): number;
}

export interface MemorySeries {
  labels: { __name__: typeof MEMORY_METRIC; node: string };
  value(i: number): number;
}

/** Pod p (0 … 299, across namespaces) gets rate rank `(p * 37) % 300 + 1` (a permutation of 1 … 300). */
function buildCpuSeries(): CpuSeries[] {
  const series: CpuSeries[] = [];
  const total = NAMESPACES.length * PODS_PER_NAMESPACE;
  NAMESPACES.forEach((namespace, n) => {
    for (let j = 0; j < PODS_PER_NAMESPACE; j++) {
      const p = n * PODS_PER_NAMESPACE + j;
      const rank = ((p * 37) % total) + 1;
      const ratePerSecond = rank / 256; // 0.0039 … 1.17 cores
      const base = (p % 7) * 1000; // counters do not all start at 0
      const step = ratePerSecond * LARGE_DATASET.intervalSeconds; // a multiple of 1/64: exact
      series.push({
        labels: {
          __name__: CPU_METRIC,
          container: "app",
          namespace,
          pod: `${namespace}-${String(j).padStart(2, "0")}`,
        },
        ratePerSecond,
        value: (i) => base + step * i,
      });
    }
  });
  return series;
}

/** The 300 CPU series, in generation order (namespace, then pod). */
export const CPU_SERIES: readonly CpuSeries[] = buildCpuSeries();

/** The memory gauges: 4, 5, 6 GiB plus a sawtooth of up to 59 MiB. */
export const MEMORY_SERIES: readonly MemorySeries[] = MEMORY_NODES.map((node, n) => ({
  labels: { __name__: MEMORY_METRIC, node },
  value: (i: number) => (4 + n) * 2 ** 30 + (i % 60) * 2 ** 20,
}));

/** The expected `rate(container_cpu_usage_seconds_total[5m])` of a pod (per second). */
export function expectedCpuRate(pod: string): number {
  const series = CPU_SERIES.find((s) => s.labels.pod === pod);
  if (!series) throw new Error(`no pod ${pod} in the large dataset`);
  return series.ratePerSecond;
}

/** The n series with the largest rates, largest first (all rates differ, so the order is strict). */
export function topPodsByRate(n: number): CpuSeries[] {
  return [...CPU_SERIES].sort((a, b) => b.ratePerSecond - a.ratePerSecond).slice(0, n);
}

/** The sample index in effect at epoch second t (the last sample at or before t), for CPU and memory series. */
export function largeSampleIndexAt(t: number): number {
  const { start, sampleCount, intervalSeconds } = LARGE_DATASET;
  return Math.max(0, Math.min(sampleCount - 1, Math.floor((t - start) / intervalSeconds)));
}

export function syntheticMetricName(i: number): string {
  return `synthetic_metric_${String(i).padStart(5, "0")}`;
}

/** The synthetic gauge i has value i at `start` and i + 1 at `end`. */
export function syntheticValue(i: number, atEnd: boolean): number {
  return atEnd ? i + 1 : i;
}

/** Every metric name in the dataset, sorted by code point (as `/api/v1/label/__name__/values` returns them). */
export function largeMetricNames(): string[] {
  const names = [CPU_METRIC, MEMORY_METRIC];
  for (let i = 0; i < SYNTHETIC_METRIC_COUNT; i++) names.push(syntheticMetricName(i));
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([key]) => key !== "__name__")
    .map(([key, value]) => `${key}="${value}"`)
    .join(",");
}

/**
 * The dataset in OpenMetrics text, in chunks of one series each (≈ 110 kB for CPU series), so it can be
 * streamed to a file without building one ~45 MB string. Pass the function itself as `openMetrics`.
 */
export function* largeOpenMetricsChunks(): Generator<string> {
  const { start, end, intervalSeconds, sampleCount } = LARGE_DATASET;
  // A counter family is named without `_total`; its samples carry the suffix.
  yield "# HELP container_cpu_usage_seconds Cumulative CPU time consumed.\n";
  yield "# TYPE container_cpu_usage_seconds counter\n";
  for (const series of CPU_SERIES) {
    const prefix = `${CPU_METRIC}{${labelText(series.labels)}} `;
    let chunk = "";
    for (let i = 0; i < sampleCount; i++)
      chunk += `${prefix}${series.value(i)} ${start + i * intervalSeconds}\n`;
    yield chunk;
  }
  yield `# HELP ${MEMORY_METRIC} Memory in use.\n# TYPE ${MEMORY_METRIC} gauge\n`;
  for (const series of MEMORY_SERIES) {
    const prefix = `${MEMORY_METRIC}{${labelText(series.labels)}} `;
    let chunk = "";
    for (let i = 0; i < sampleCount; i++)
      chunk += `${prefix}${series.value(i)} ${start + i * intervalSeconds}\n`;
    yield chunk;
  }
  let chunk = "";
  for (let i = 0; i < SYNTHETIC_METRIC_COUNT; i++) {
    const name = syntheticMetricName(i);
    chunk += `# TYPE ${name} gauge\n${name} ${syntheticValue(i, false)} ${start}\n${name} ${syntheticValue(i, true)} ${end}\n`;
    if (i % 1000 === 999) {
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}# EOF\n`;
}

/** The whole dataset as one string (≈ 45 MB: prefer `largeOpenMetricsChunks`). */
export function largeOpenMetricsText(): string {
  return [...largeOpenMetricsChunks()].join("");
}
