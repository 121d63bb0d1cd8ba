import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unitOfQuery } from "../../src/charts/units.js";
import { valueAxis } from "../../src/charts/valueAxis.js";
import { chartThresholds } from "../../tools/params.js";

describe("unitOfQuery: the unit by Prometheus's naming conventions", () => {
  it.each([
    ["node_memory_MemAvailable_bytes", "bytes"],
    ['container_memory_working_set_bytes{pod=~"api-.*"}', "bytes"],
    ["sum by (pod) (rate(container_network_receive_bytes_total[5m]))", "bytes/s"],
    ["increase(node_network_receive_bytes_total[1h])", "bytes"],
    ["http_request_duration_seconds_bucket", "seconds"],
    ["histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))", "seconds"],
    [
      "rate(http_request_duration_seconds_sum[5m]) / rate(http_request_duration_seconds_count[5m])",
      "seconds",
    ],
    ["rate(http_request_duration_seconds_count[5m])", "/s"],
    ["sum(rate(http_requests_total[5m]))", "/s"],
    ["cache_hit_ratio", "ratio"],
    ["node_filesystem_avail_bytes / node_filesystem_size_bytes", "ratio"],
    ['sum(rate(http_requests_total{code=~"5.."}[5m])) / sum(rate(http_requests_total[5m]))', "ratio"],
    ["(node_filesystem_avail_bytes / node_filesystem_size_bytes) * 100", "percent"],
    ["100 * (node_filesystem_avail_bytes / node_filesystem_size_bytes)", "percent"],
    ["process_cpu_usage_percent", "percent"],
    ["node_memory_MemAvailable_bytes / 1024", "bytes"],
  ])("%s: %s", (query, unit) => {
    expect(unitOfQuery(query)).toBe(unit);
  });

  it.each([
    // Seconds per second: CPU cores, no unit.
    "rate(container_cpu_usage_seconds_total[5m])",
    "up",
    "increase(http_requests_total[1h])",
    "node_memory_MemAvailable_bytes * 8",
    "node_memory_MemAvailable_bytes / node_load1",
    "node_memory_MemAvailable_bytes + process_cpu_seconds_total",
    // A string is no metric name: a path ending in _bytes, a division inside a matcher.
    'up{path="/api/x_bytes"}',
    'rate(http_requests_total{path="/a/b"}[5m]) * 2',
  ])("%s: no unit (plain numbers)", (query) => {
    expect(unitOfQuery(query)).toBeUndefined();
  });
});

describe("valueAxis: nice ticks in the unit", () => {
  it.each([
    // [low, high, unit, the tick labels from min to max]
    [2.61 * 2 ** 30, 3.73 * 2 ** 30, "bytes", ["2.5 GiB", "3.0 GiB", "3.5 GiB", "4.0 GiB"]],
    [0.05, 0.65, "seconds", ["0 ms", "200 ms", "400 ms", "600 ms", "800 ms"]],
    [90, 600, "seconds", ["0 min", "2 min", "4 min", "6 min", "8 min", "10 min"]],
    [0.003, 0.05, "ratio", ["0 %", "1 %", "2 %", "3 %", "4 %", "5 %"]],
    [20 * 2 ** 20, 78 * 2 ** 20, "bytes/s", ["20 MiB/s", "40 MiB/s", "60 MiB/s", "80 MiB/s"]],
    [1200, 4800, "/s", ["1 k/s", "2 k/s", "3 k/s", "4 k/s", "5 k/s"]],
    [2e9, 9e9, undefined, ["2 G", "4 G", "6 G", "8 G", "10 G"]],
    [-1, 1, undefined, ["-1.0", "-0.5", "0.0", "0.5", "1.0"]],
    [1, 1, undefined, ["0.90", "0.95", "1.00", "1.05", "1.10"]],
  ] as const)("%d … %d %s", (low, high, unit, labels) => {
    const axis = valueAxis(low, high, unit);
    if (axis === undefined) throw new Error("no axis");
    const ticks: string[] = [];
    for (let at = axis.min; at <= axis.max + axis.interval / 1e6; at += axis.interval)
      ticks.push(axis.label(at));
    expect(ticks).toStrictEqual(labels);
  });

  it("covers every value with at most ten intervals, each tick labelled apart (property)", () => {
    const finite = fc.double({ min: -1e15, max: 1e15, noNaN: true });
    const unit = fc.constantFrom(undefined, "bytes", "bytes/s", "seconds", "ratio", "percent", "/s" as const);
    fc.assert(
      fc.property(finite, finite, unit, (a, b, asked) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const axis = valueAxis(low, high, asked);
        if (axis === undefined) throw new Error("no axis for finite values");
        expect(axis.min).toBeLessThanOrEqual(low);
        expect(axis.max).toBeGreaterThanOrEqual(high);
        const intervals = Math.round((axis.max - axis.min) / axis.interval);
        expect(intervals).toBeGreaterThanOrEqual(1);
        expect(intervals).toBeLessThanOrEqual(10);
        const labels = Array.from({ length: intervals + 1 }, (_, at) =>
          axis.label(axis.min + at * axis.interval),
        );
        expect(new Set(labels).size).toBe(labels.length);
      }),
    );
  });

  it("values no interval between can be a number: none (ECharts's own axis)", () => {
    expect(valueAxis(-Number.MAX_VALUE, Number.MAX_VALUE, undefined)).toBeUndefined();
  });
});

describe("the thresholds argument", () => {
  const parse = (value: unknown) => chartThresholds.safeParse(value);
  const problem = (value: unknown) =>
    parse(value)
      .error?.issues.map((issue) => issue.message)
      .join("; ");

  it("takes numbers, and values with labels; always {value, label?} once parsed", () => {
    expect(parse([0.9, { value: 0.5, label: "warn" }, { value: 2 }]).data).toStrictEqual([
      { value: 0.9 },
      { value: 0.5, label: "warn" },
      { value: 2, label: undefined },
    ]);
    expect(parse(null).data).toBeNull();
    expect(parse(undefined).data).toBeUndefined();
  });

  it.each([
    [[1, 2, 3, 4, 5, 6], /at most 5 values/],
    [[Number.POSITIVE_INFINITY], /thresholds must be a list/],
    [[{ value: Number.NaN }], /thresholds must be a list/],
    [[{ label: "no value" }], /thresholds must be a list/],
    [["ninety"], /thresholds must be a list/],
    [[{ value: 1, label: "x".repeat(41) }], /at most 40 characters|thresholds must be/],
    [[{ value: 1, label: "\ud800" }], /lone surrogate|thresholds must be/],
    [[{ value: 1, colour: "red" }], /number or \{value, label\}: no other keys/],
    [0.9, /thresholds must be a list/],
  ])("%j: a clear error", (value, message) => {
    expect(problem(value)).toMatch(message);
  });
});
