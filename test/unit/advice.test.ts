import { readFileSync } from "node:fs";
import { parser } from "@prometheus-io/lezer-promql";
import { describe, expect, it } from "vitest";
import { advise, formatDuration } from "../../src/promql/advice.js";
import type { AdviceFacts, Suggestion } from "../../src/promql/adviceContext.js";

type Kind = Suggestion["kind"];

interface Row {
  name: string;
  facts: Partial<AdviceFacts> & { query: string };
  /** Suggestions that must be present (by kind; with `query` when the exact rewrite matters). */
  must?: Array<{ kind: Kind; query?: string; text?: RegExp }>;
  /** When set, the kinds returned, in this order, and nothing else. */
  exactly?: Kind[];
  mustNotKinds?: Kind[];
  /** No suggested query may contain any of these. */
  mustNotContain?: string[];
}

// 120 pods in 3 namespaces: the usual shape of a per-pod answer that had to be cut.
const PER_POD = [
  { name: "namespace", distinct: 3 },
  { name: "pod", distinct: 120 },
];
const RANGE = { stepSeconds: 15, rangeSeconds: 3600 };
const FOCUS = { name: "namespace", value: "payments" };

function facts(row: Row): AdviceFacts {
  return { seriesTotal: 120, varyingLabels: PER_POD, order: "highest", ...row.facts };
}

const rows: Row[] = [
  // ---- histograms
  {
    name: "histogram_quantile per pod: sum the buckets inside, never the quantiles",
    facts: { query: "histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m]))" },
    must: [
      {
        kind: "aggregate",
        query:
          "histogram_quantile(0.99, sum by (le, namespace) (rate(http_request_duration_seconds_bucket[5m])))",
      },
      {
        kind: "topk",
        query: "topk(10, histogram_quantile(0.99, rate(http_request_duration_seconds_bucket[5m])))",
      },
    ],
    mustNotContain: ["sum by (instance) (histogram_quantile", "(histogram_quantile"],
  },
  {
    name: "histogram_quantile already aggregated with le: shrink the inner list",
    facts: { query: "histogram_quantile(0.9, sum by (le, namespace, pod) (rate(x_bucket[5m])))" },
    must: [
      { kind: "aggregate", query: "histogram_quantile(0.9, sum by (le, namespace) (rate(x_bucket[5m])))" },
    ],
    mustNotContain: ["(histogram_quantile"],
  },
  {
    name: "histogram_quantile by (le, pod): the same list would not help, a new label must not be added",
    facts: { query: "histogram_quantile(0.9, sum by (le, pod) (rate(x_bucket[5m])))" },
    mustNotKinds: ["aggregate"],
    mustNotContain: ["le, namespace", "(histogram_quantile"],
  },
  {
    name: "histogram_quantile by (le) only, one series over a long range: just the step",
    facts: {
      query: "histogram_quantile(0.9, sum(rate(x_bucket[5m])) by (le))",
      seriesTotal: 1,
      varyingLabels: [],
      range: RANGE,
      fittingStepSeconds: 300,
    },
    exactly: ["step"],
    must: [{ kind: "step", text: /step=5m\b/ }],
  },
  {
    name: "histogram_quantile of native histograms aggregated without le, times 1000",
    facts: { query: "histogram_quantile(0.9, sum by (namespace, pod) (rate(x[5m]))) * 1000" },
    must: [{ kind: "aggregate", query: "histogram_quantile(0.9, sum by (namespace) (rate(x[5m]))) * 1000" }],
    mustNotContain: ["(histogram_quantile"],
  },
  {
    name: "raw buckets: a sum keeps le apart",
    facts: {
      query: "rate(x_bucket[5m])",
      seriesTotal: 360,
      varyingLabels: [
        { name: "namespace", distinct: 3 },
        { name: "le", distinct: 12 },
        { name: "pod", distinct: 30 },
      ],
    },
    must: [{ kind: "aggregate", query: "sum by (le, namespace) (rate(x_bucket[5m]))" }],
    mustNotContain: ["sum by (namespace) ("],
  },
  {
    name: "summary quantiles: never summed",
    facts: {
      query: "rpc_duration_seconds",
      seriesTotal: 99,
      varyingLabels: [
        { name: "quantile", distinct: 3 },
        { name: "pod", distinct: 33 },
      ],
      order: "lowest",
    },
    must: [{ kind: "bottomk", query: "bottomk(10, rpc_duration_seconds)" }],
    mustNotKinds: ["aggregate"],
    mustNotContain: ["sum"],
  },
  {
    name: "max_over_time of a histogram_quantile subquery: regroup inside the subquery",
    facts: { query: "max_over_time(histogram_quantile(0.9, rate(x_bucket[5m]))[1h:1m])" },
    must: [
      {
        kind: "aggregate",
        query: "max_over_time(histogram_quantile(0.9, sum by (le, namespace) (rate(x_bucket[5m])))[1h:1m])",
      },
    ],
    mustNotContain: ["(max_over_time"],
  },

  // ---- aggregations
  {
    name: "sum by a single label: never wrapped in the same sum",
    facts: {
      query: "sum by (namespace) (rate(x[5m]))",
      seriesTotal: 40,
      varyingLabels: [{ name: "namespace", distinct: 40 }],
    },
    must: [{ kind: "topk", query: "topk(10, sum by (namespace) (rate(x[5m])))" }],
    mustNotKinds: ["aggregate"],
    mustNotContain: ["sum by (namespace) (sum"],
  },
  {
    name: "sum by two labels: drop to the chosen one",
    facts: { query: "sum by (namespace, pod) (rate(x[5m]))" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (rate(x[5m]))" }],
    mustNotContain: ["(sum by", "sum by (namespace, pod) (rate(x[5m]))) "],
  },
  {
    name: "sum with a trailing by clause keeps its place",
    facts: { query: "sum(rate(x[5m])) by (namespace, pod)" },
    must: [{ kind: "aggregate", query: "sum(rate(x[5m])) by (namespace)" }],
  },
  {
    name: "max by three labels, one of them constant",
    facts: { query: "max by (cluster, namespace, pod) (container_memory_working_set_bytes)" },
    must: [{ kind: "aggregate", query: "max by (namespace) (container_memory_working_set_bytes)" }],
  },
  {
    name: "avg without: no aggregate suggestion",
    facts: { query: "avg without (pod) (x)" },
    mustNotKinds: ["aggregate"],
    must: [{ kind: "topk", query: "topk(10, avg without (pod) (x))" }],
  },
  {
    name: "count by with quoted UTF-8 label names",
    facts: {
      query: 'count by ("service.name", pod) (up)',
      seriesTotal: 80,
      varyingLabels: [
        { name: "service.name", distinct: 4 },
        { name: "pod", distinct: 80 },
      ],
    },
    must: [{ kind: "aggregate", query: 'count by ("service.name") (up)' }],
  },
  {
    name: "quantile aggregation: never wrapped",
    facts: { query: "quantile by (namespace, pod) (0.9, x)" },
    mustNotKinds: ["aggregate"],
    mustNotContain: ["(quantile"],
  },
  {
    name: "count_values: no aggregate, no narrowing (it makes a label)",
    facts: { query: 'count_values("version", build_info)', focus: FOCUS },
    mustNotKinds: ["aggregate", "narrow"],
  },
  {
    name: "topk(5) over a range already picks few per step",
    facts: {
      query: "topk(5, rate(x[5m]))",
      seriesTotal: 25,
      varyingLabels: [{ name: "pod", distinct: 25 }],
      range: RANGE,
    },
    exactly: [],
  },
  {
    name: "topk(50): a smaller k",
    facts: { query: "topk(50, x)", seriesTotal: 50, varyingLabels: [{ name: "pod", distinct: 50 }] },
    exactly: ["topk"],
    must: [{ kind: "topk", query: "topk(10, x)" }],
    mustNotContain: ["(topk"],
  },
  {
    name: "bottomk(20): a smaller k, same direction",
    facts: { query: "bottomk(20, x)", seriesTotal: 20, varyingLabels: [{ name: "pod", distinct: 20 }] },
    must: [{ kind: "bottomk", query: "bottomk(10, x)" }],
  },

  // ---- binary operators
  {
    name: "ratio: a ratio of sums, never a sum of ratios",
    facts: { query: "rate(errors_total[5m]) / rate(requests_total[5m])" },
    must: [
      {
        kind: "aggregate",
        query: "sum by (namespace) (rate(errors_total[5m])) / sum by (namespace) (rate(requests_total[5m]))",
      },
    ],
    mustNotContain: ["(rate(errors_total[5m]) /"],
  },
  {
    name: "ratio with on(...) group_left: no aggregate suggestion",
    facts: { query: "rate(a[5m]) / on(pod) group_left rate(b[5m])" },
    mustNotKinds: ["aggregate"],
  },
  {
    name: "ratio with ignoring(...): no aggregate suggestion",
    facts: { query: "rate(a[5m]) / ignoring(code) rate(b[5m])" },
    mustNotKinds: ["aggregate"],
  },
  {
    name: "percentage of a ratio: the ratio is regrouped, the scaling kept",
    facts: { query: "(rate(a[5m]) / rate(b[5m])) * 100" },
    must: [
      {
        kind: "aggregate",
        query: "(sum by (namespace) (rate(a[5m])) / sum by (namespace) (rate(b[5m]))) * 100",
      },
    ],
    mustNotContain: ["sum by (namespace) ((rate(a[5m]) /"],
  },
  {
    name: "one minus a ratio",
    facts: { query: "1 - (rate(a[5m]) / rate(b[5m]))" },
    must: [
      {
        kind: "aggregate",
        query: "1 - (sum by (namespace) (rate(a[5m])) / sum by (namespace) (rate(b[5m])))",
      },
    ],
  },
  {
    name: "difference of two gauges: each side summed",
    facts: { query: "node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes" },
    must: [
      {
        kind: "aggregate",
        query:
          "sum by (namespace) (node_memory_MemTotal_bytes) - sum by (namespace) (node_memory_MemAvailable_bytes)",
      },
    ],
  },
  {
    name: "product of two vectors: the products are summed",
    facts: { query: "usage * price" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (usage * price)" }],
    mustNotContain: ["sum by (namespace) (usage) *"],
  },
  {
    name: "scalar arithmetic",
    facts: { query: "rate(x[5m]) * 8" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (rate(x[5m]) * 8)" }],
  },
  {
    name: "a number divided by a vector: not summable",
    facts: { query: "100 / x" },
    mustNotKinds: ["aggregate"],
  },
  {
    name: "comparison with a number: count what passes",
    facts: { query: "node_load1 > 0.9" },
    must: [{ kind: "aggregate", query: "count by (namespace) (node_load1 > 0.9)" }],
    mustNotKinds: ["filter"],
  },
  {
    name: "comparison with the number on the left",
    facts: { query: "0.5 < rate(x[5m])" },
    must: [{ kind: "aggregate", query: "count by (namespace) (0.5 < rate(x[5m]))" }],
    mustNotKinds: ["filter"],
  },
  {
    name: "comparison with bool: the 0/1 add up",
    facts: { query: "up == bool 0" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (up == bool 0)" }],
  },

  // ---- subqueries, offset, @
  {
    name: "subquery over a range query: topk text says per step",
    facts: { query: "max_over_time(rate(x[5m])[1h:1m])", range: RANGE },
    must: [
      { kind: "aggregate", query: "sum by (namespace) (max_over_time(rate(x[5m])[1h:1m]))" },
      { kind: "topk", query: "topk(10, max_over_time(rate(x[5m])[1h:1m]))", text: /per step/ },
    ],
  },
  {
    name: "offset survives verbatim, narrowing goes into the selector",
    facts: { query: "rate(x[5m] offset 1h)", focus: FOCUS },
    exactly: ["narrow", "aggregate", "topk", "filter"],
    must: [
      { kind: "narrow", query: 'rate(x{namespace="payments"}[5m] offset 1h)' },
      { kind: "aggregate", query: "sum by (namespace) (rate(x[5m] offset 1h))" },
      { kind: "filter", query: "rate(x[5m] offset 1h) > 0" },
    ],
  },
  {
    name: "@ start() survives verbatim",
    facts: { query: "increase(x[1h] @ start())", range: RANGE, fittingStepSeconds: 90 },
    exactly: ["step", "aggregate", "topk"],
    must: [
      { kind: "step", text: /step=1m30s\b/ },
      { kind: "aggregate", query: "sum by (namespace) (increase(x[1h] @ start()))" },
    ],
  },
  {
    name: "@ timestamp on a selector",
    facts: { query: "x @ 1700000000" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (x @ 1700000000)" }],
  },

  // ---- functions
  {
    name: "irate",
    facts: { query: "irate(x[1m])" },
    must: [
      { kind: "aggregate", query: "sum by (namespace) (irate(x[1m]))" },
      { kind: "filter", query: "irate(x[1m]) > 0" },
    ],
  },
  {
    name: "delta of a gauge: no > 0 filter (it can go negative)",
    facts: { query: "delta(temperature[1h])" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (delta(temperature[1h]))" }],
    mustNotKinds: ["filter"],
  },
  {
    name: "deriv",
    facts: { query: "deriv(x[10m])" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (deriv(x[10m]))" }],
  },
  {
    name: "predict_linear",
    facts: { query: "predict_linear(node_filesystem_free_bytes[6h], 86400)", order: "lowest" },
    must: [
      {
        kind: "aggregate",
        query: "sum by (namespace) (predict_linear(node_filesystem_free_bytes[6h], 86400))",
      },
      { kind: "bottomk", query: "bottomk(10, predict_linear(node_filesystem_free_bytes[6h], 86400))" },
    ],
    mustNotKinds: ["topk"],
  },
  {
    name: "avg_over_time of a gauge may be summed",
    facts: { query: "avg_over_time(container_memory_working_set_bytes[1h])" },
    must: [
      {
        kind: "aggregate",
        query: "sum by (namespace) (avg_over_time(container_memory_working_set_bytes[1h]))",
      },
    ],
  },
  {
    name: "quantile_over_time: never summed",
    facts: { query: "quantile_over_time(0.95, x[1h])" },
    mustNotKinds: ["aggregate"],
    mustNotContain: ["(quantile_over_time"],
  },
  {
    name: "stddev_over_time: never summed",
    facts: { query: "stddev_over_time(x[1h])" },
    mustNotKinds: ["aggregate"],
  },
  {
    name: "abs",
    facts: { query: "abs(x)" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (abs(x))" }],
  },
  {
    name: "clamp_max",
    facts: { query: "clamp_max(x, 1)" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (clamp_max(x, 1))" }],
  },
  {
    name: "label_replace: summed around, never narrowed (the label may be made here)",
    facts: { query: 'label_replace(x, "namespace", "$1", "ns", "(.*)")', focus: FOCUS },
    must: [
      { kind: "aggregate", query: 'sum by (namespace) (label_replace(x, "namespace", "$1", "ns", "(.*)"))' },
    ],
    mustNotKinds: ["narrow"],
  },
  {
    name: "absent: nothing to say",
    facts: { query: 'absent(up{job="a"})', seriesTotal: 1, varyingLabels: [] },
    exactly: [],
  },
  {
    name: "absent with made-up facts: still no aggregate or topk",
    facts: { query: "absent(up)", seriesTotal: 50 },
    mustNotKinds: ["aggregate", "topk", "bottomk"],
  },
  {
    name: "time(): a scalar, nothing to say",
    facts: { query: "time()", seriesTotal: 1, varyingLabels: [] },
    exactly: [],
  },
  {
    name: "sqrt of a rate: not summable",
    facts: { query: "sqrt(rate(x[5m]))" },
    mustNotKinds: ["aggregate"],
  },

  // ---- parens, comments, selectors
  {
    name: "nested parens are looked through",
    facts: { query: "((sum by (namespace, pod) (rate(x[5m]))))" },
    must: [
      { kind: "aggregate", query: "sum by (namespace) (rate(x[5m]))" },
      { kind: "topk", query: "topk(10, sum by (namespace, pod) (rate(x[5m])))" },
    ],
  },
  {
    name: "a trailing comment does not swallow the closing parenthesis",
    facts: { query: "rate(x[5m]) # per pod" },
    must: [{ kind: "aggregate", query: "sum by (namespace) (rate(x[5m]))" }],
  },
  {
    name: "a raw range selector on an instant query: no sum or topk of a range vector",
    facts: { query: "x[5m]", focus: FOCUS },
    exactly: ["narrow"],
    must: [{ kind: "narrow", query: 'x{namespace="payments"}[5m]' }],
  },
  {
    name: "narrow: matcher appended to existing ones",
    facts: { query: 'x{job="a"}', focus: FOCUS },
    must: [{ kind: "narrow", query: 'x{job="a",namespace="payments"}' }],
  },
  {
    name: "narrow: __name__ selector, value escaped",
    facts: { query: '{__name__="x"}', focus: { name: "namespace", value: 'pay"ments\\' } },
    must: [{ kind: "narrow", query: '{__name__="x",namespace="pay\\"ments\\\\"}' }],
  },
  {
    name: "narrow: not when the selector already matches on the label",
    facts: { query: 'x{namespace=~"pay.*"}', focus: FOCUS },
    mustNotKinds: ["narrow"],
  },
  {
    name: "narrow: not with two selectors",
    facts: { query: "rate(a[5m]) / rate(b[5m])", focus: FOCUS },
    mustNotKinds: ["narrow"],
  },

  // ---- series count, order, step
  {
    name: "ten series: no topk",
    facts: {
      query: "rate(x[5m])",
      seriesTotal: 10,
      varyingLabels: [
        { name: "namespace", distinct: 2 },
        { name: "pod", distinct: 10 },
      ],
    },
    must: [{ kind: "aggregate", query: "sum by (namespace) (rate(x[5m]))" }],
    mustNotKinds: ["topk", "bottomk"],
  },
  {
    name: "unusual order: topk",
    facts: { query: "x", order: "unusual" },
    must: [{ kind: "topk", query: "topk(10, x)" }],
    mustNotKinds: ["bottomk"],
  },
  {
    name: "instant query: never a step, even with a fitting step given",
    facts: { query: "x", fittingStepSeconds: 300 },
    mustNotKinds: ["step"],
  },
  {
    name: "range query whose fitting step is the asked one: no step",
    facts: { query: "x", range: RANGE, fittingStepSeconds: 15 },
    mustNotKinds: ["step"],
  },
  {
    name: "range query with no fitting step: no step, no filter",
    facts: { query: "rate(x[5m])", range: RANGE },
    mustNotKinds: ["step", "filter"],
    must: [{ kind: "aggregate" }, { kind: "topk", text: /per step/ }],
  },
  {
    name: "range query that fits at one day",
    facts: { query: "x", range: { stepSeconds: 60, rangeSeconds: 7 * 86400 }, fittingStepSeconds: 86400 },
    must: [{ kind: "step", text: /step=1d\b/ }],
  },
  {
    name: "a query that does not parse: only the step",
    facts: { query: "sum by (namespace (rate(x[5m])", range: RANGE, fittingStepSeconds: 3600, focus: FOCUS },
    exactly: ["step"],
    must: [{ kind: "step", text: /step=1h\b/ }],
  },
  {
    name: "a query that does not parse, instant: nothing",
    facts: { query: "rate(x[5m]", focus: FOCUS },
    exactly: [],
  },
];

function parsesCleanly(query: string): boolean {
  let clean = true;
  parser.parse(query).iterate({
    enter: (node) => {
      if (node.type.isError) clean = false;
    },
  });
  return clean;
}

// Any aggregation (or topk-like wrapper) directly around a histogram_quantile: the result is meaningless.
const AGGREGATED_QUANTILE =
  /\b(sum|avg|min|max|count|group|stddev|stdvar)\s*(by|without)?\s*(\([^)]*\))?\s*\(\s*histogram_quantile/;

describe("advise", () => {
  it("has a table of at least 30 queries", () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)("$name", async (row) => {
    const f = facts(row);
    const got = await advise(f);
    const kinds = got.map((s) => s.kind);

    for (const s of got) {
      if (s.query !== undefined) expect(parsesCleanly(s.query), s.query).toBe(true);
      expect(s.query ?? "").not.toMatch(AGGREGATED_QUANTILE);
      expect(s.text.length).toBeGreaterThan(0);
    }
    expect(got.length).toBeLessThanOrEqual(4);
    if (!f.range) expect(kinds).not.toContain("step");
    if (f.seriesTotal <= 10) expect(kinds.filter((k) => k === "topk" || k === "bottomk")).toEqual([]);
    if (kinds.includes("step")) expect(kinds[0]).toBe("step");

    if (row.exactly) expect(kinds).toEqual(row.exactly);
    for (const want of row.must ?? []) {
      const match = got.find(
        (s) =>
          s.kind === want.kind &&
          (want.query === undefined || s.query === want.query) &&
          (want.text === undefined || want.text.test(s.text)),
      );
      expect(match, `${want.kind} ${want.query ?? ""} in ${JSON.stringify(got, null, 1)}`).toBeDefined();
    }
    for (const kind of row.mustNotKinds ?? []) expect(kinds).not.toContain(kind);
    for (const bad of row.mustNotContain ?? []) {
      for (const s of got) expect(s.query ?? "").not.toContain(bad);
    }
  });

  it("orders step, narrow, aggregate, topk", async () => {
    const got = await advise({
      query: "rate(x[5m])",
      range: RANGE,
      fittingStepSeconds: 60,
      seriesTotal: 120,
      varyingLabels: PER_POD,
      order: "highest",
      focus: FOCUS,
    });
    expect(got.map((s) => s.kind)).toEqual(["step", "narrow", "aggregate", "topk"]);
  });

  it("never throws on odd facts", async () => {
    const odd = {
      query: "x".repeat(5000),
      seriesTotal: Number.NaN,
      varyingLabels: [{ name: "", distinct: Number.POSITIVE_INFINITY }],
      order: "lowest",
      focus: { name: "", value: "" },
      range: { stepSeconds: 0, rangeSeconds: -1 },
      fittingStepSeconds: Number.NaN,
    } as const;
    await expect(advise(odd)).resolves.toBeInstanceOf(Array);
  });

  it("keeps the parser off the cold-start path", () => {
    const source = readFileSync(new URL("../../src/promql/advice.ts", import.meta.url), "utf8");
    expect(source).not.toMatch(/^import[^;]*from\s+"@prometheus-io\/lezer-promql"/m);
    expect(source).toContain("await loadPromql()");
  });
});

describe("formatDuration", () => {
  it.each([
    [90, "1m30s"],
    [300, "5m"],
    [3600, "1h"],
    [86400, "1d"],
    [93784, "1d2h3m4s"],
    [604800, "1w"],
    [0.5, "500ms"],
    [15, "15s"],
  ])("%s seconds → %s", (seconds, want) => {
    expect(formatDuration(seconds)).toBe(want);
  });
});
