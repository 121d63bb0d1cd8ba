import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handler, makeHandler, postMcp } from "../support/handler.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
  WHOLE_DATASET_RANGE,
} from "../support/prometheus.js";
import {
  type RunningVictoriaMetrics,
  startVictoriaMetrics,
  victoriaMetricsAvailable,
} from "../support/victoriaMetrics.js";

// The same dataset in a real Prometheus and a real VictoriaMetrics (single node, loaded through its
// import API): the query and discovery tools must give the same answers from both, numbers compared
// as numbers (the two compute rates in a different order: the last digit of a float may differ).

const MIDDLE = String(DATASET.start + 1800);
const WHOLE = { start: String(DATASET.start), end: String(DATASET.end) };

// The rates of two series are equally unusual (each as far from their median): under the default order
// their series_stats rows would be ranked by the last digit of a float, which the two compute differently;
// `highest` ranks them by value.
const CALLS: Array<[string, Record<string, unknown>]> = [
  ["ExecuteQuery", { query: "test_temperature_celsius", time: MIDDLE }],
  ["ExecuteQuery", { query: "rate(test_requests_total[5m])", time: MIDDLE, order: "highest" }],
  ["ExecuteQuery", { query: "sum by (job) (test_requests_total)", time: MIDDLE }],
  ["ExecuteQuery", { query: 'up{job="no-such-job"}', time: MIDDLE }],
  ["ExecuteRangeQuery", { ...WHOLE_DATASET_RANGE, step: "300" }],
  ["ExecuteRangeQuery", { query: "rate(test_requests_total[5m])", ...WHOLE, step: "600", order: "highest" }],
  ["ListMetrics", {}],
  ["ListLabels", WHOLE],
  ["ListLabelValues", { label: "instance", ...WHOLE }],
  ["FindSeries", { match: "test_requests_total", ...WHOLE }],
  ["FindSeries", { match: '{room="lab"}', ...WHOLE }],
  ["GetMetricMetadata", {}],
  ["ListRules", {}],
  ["ListAlerts", {}],
];

type Json = unknown;

/** Sample values (strings in Prometheus's answers) as numbers, rounded to 12 significant digits. */
function normalized(value: Json): Json {
  if (Array.isArray(value)) {
    if (value.length === 2 && typeof value[0] === "number" && typeof value[1] === "string") {
      const sample = Number(value[1]);
      return [value[0], Number.isFinite(sample) ? Number(sample.toPrecision(12)) : value[1]];
    }
    return value.map(normalized);
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, normalized(entry)]));
  }
  return value;
}

describe.skipIf(!prometheusAvailable() || !victoriaMetricsAvailable())(
  "VictoriaMetrics answers the tools as Prometheus does, on the same data",
  () => {
    let prometheus: RunningPrometheus;
    let victoria: RunningVictoriaMetrics;
    let fromPrometheus: Handler;
    let fromVictoria: Handler;

    beforeAll(async () => {
      [prometheus, victoria] = await Promise.all([startPrometheus(), startVictoriaMetrics()]);
      fromPrometheus = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
      fromVictoria = makeHandler({ PROMETHEUS_URL: victoria.url, PROMETHEUS_AUTH: "none" });
    }, 120_000);

    afterAll(async () => {
      await Promise.all([prometheus?.close(), victoria?.close()]);
    });

    async function call(handler: Handler, name: string, args: Record<string, unknown>) {
      const http = await postMcp(handler, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      });
      expect(http.statusCode).toBe(200);
      return (JSON.parse(http.body) as { result: { content: { text: string }[]; isError?: boolean } }).result;
    }

    for (const [name, args] of CALLS) {
      it(`${name} ${JSON.stringify(args)}`, async () => {
        const [expected, got] = await Promise.all([
          call(fromPrometheus, name, args),
          call(fromVictoria, name, args),
        ]);
        expect(expected.isError, JSON.stringify(expected)).toBeFalsy();
        expect(got.isError, JSON.stringify(got)).toBeFalsy();
        const [answer, ...hints] = got.content.map((item) => item.text);
        const [prometheusAnswer, ...prometheusHints] = expected.content.map((item) => item.text);
        expect(normalized(JSON.parse(answer ?? "null"))).toStrictEqual(
          normalized(JSON.parse(prometheusAnswer ?? "null")),
        );
        expect(hints).toStrictEqual(prometheusHints);
      });
    }

    it("FindSeries without start finds only recent series on VictoriaMetrics, and its empty answer says so", async () => {
      // The dataset is from 2023: Prometheus searches everything it stores, VictoriaMetrics about a day.
      const [expected, got] = await Promise.all([
        call(fromPrometheus, "FindSeries", { match: "test_requests_total" }),
        call(fromVictoria, "FindSeries", { match: "test_requests_total" }),
      ]);
      expect(JSON.parse(expected.content[0]?.text ?? "null").series.length).toBeGreaterThan(0);
      const text = got.content.map((item) => item.text).join("\n");
      expect(text).toMatch(/only about the last day on VictoriaMetrics; pass start to look further back/);
    });

    it("a PromQL error is VictoriaMetrics' own, as a tool error", async () => {
      const result = await call(fromVictoria, "ExecuteQuery", {
        query: "rate(test_requests_total[5m]",
        time: MIDDLE,
      });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(
        /^Error executing tool ExecuteQuery: Prometheus rejected the query \(HTTP (400|422)\)/,
      );
    });
  },
);
