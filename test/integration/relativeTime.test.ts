import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rounded } from "../../src/results/numbers.js";
import { ExecuteQuery, ExecuteRangeQuery } from "../../tools/index.js";
import type { ToolCall } from "../../tools/types.js";
import { type AmpStack, startAmpStack } from "../support/ampStack.js";
import { DATASET, prometheusAvailable, SERIES, sampleIndexAt } from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";
import { callTool, makeToolCall } from "../support/toolCall.js";

// `now-<duration>` against a real Prometheus. The dataset lies in November 2023, so the clock is frozen
// where `now-…` lands inside it (a test reading the real clock would compare two empty answers); the
// tests that read the real clock query `time()`, whose answer is the evaluation time itself.

const REGION = "us-west-2";
const WS = "ws-44444444-aaaa-bbbb-cccc-000000000004";
const { start, end } = DATASET;

type Matrix = {
  resultType: "matrix";
  result: { metric: Record<string, string>; values: [number, string][] }[];
};
type Vector = { resultType: "vector"; result: { metric: Record<string, string>; value: [number, string] }[] };
type Scalar = { resultType: "scalar"; result: [number, string] };

describe.skipIf(!prometheusAvailable())("now-<duration> against a real Prometheus", () => {
  let stack: AmpStack;

  beforeAll(async () => {
    stack = await startAmpStack(REGION, [{ workspaceId: WS, status: "ACTIVE" }]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  beforeEach(() => stack.proxy.reset());

  /** A call to the workspace whose clock reads `nowMs`, or the real clock. */
  const call = (nowMs?: number): ToolCall => ({
    ...makeToolCall({ prometheusUrl: stack.proxy.workspaceUrl(WS), defaultRegion: REGION }),
    ...(nowMs === undefined ? {} : { clock: () => nowMs }),
  });

  /** The query string parameters of every request Prometheus received, in order. */
  const sent = () =>
    stack.proxy.requests.map((request) => new URL(request.rawUrl, "http://proxy").searchParams);

  describe("with the clock frozen inside the dataset", () => {
    it("start=now-1h, end=now: the same matrix as the absolute times they name (half a second included)", async () => {
      const now = end * 1000 + 500;
      const args = { query: "test_requests_total", step: "60s" };
      const relative = (await callTool(
        ExecuteRangeQuery,
        { ...args, start: "now-1h", end: "now" },
        call(now),
      )) as Matrix;
      const absolute = await callTool(
        ExecuteRangeQuery,
        { ...args, start: `${start}.5`, end: `${end}.5` },
        call(now),
      );
      expect(relative).toEqual(absolute);
      // Not two empty answers: both series, every minute of the hour, at the half second.
      expect(relative.result).toHaveLength(2);
      for (const { points } of queryPoints(relative)) {
        expect(points).toHaveLength(61);
        expect(points[0]?.[0]).toBe(start + 0.5);
        expect(points[60]?.[0]).toBe(end + 0.5);
      }
      const [a] = queryPoints(relative).filter((series) => series.metric.instance === "a");
      expect(a?.points[60]?.[1]).toBe(rounded(10 * sampleIndexAt(end)));
      const [first, second] = sent();
      expect([first?.get("start"), first?.get("end")]).toEqual([`${start}.5`, `${end}.5`]);
      expect([second?.get("start"), second?.get("end")]).toEqual([`${start}.5`, `${end}.5`]);
    });

    it("combined units: start=now-1h30m, end=now-30m with the clock half an hour after the data", async () => {
      const now = (end + 1800) * 1000;
      const args = { query: "test_temperature_celsius", step: "15s" };
      const relative = (await callTool(
        ExecuteRangeQuery,
        { ...args, start: "now-1h30m", end: "now-30m" },
        call(now),
      )) as Matrix;
      const absolute = await callTool(
        ExecuteRangeQuery,
        { ...args, start: String(start), end: String(end) },
        call(now),
      );
      expect(relative).toEqual(absolute);
      const temperature = SERIES.find((series) => series.name === "test_temperature_celsius");
      expect(queryPoints(relative)[0]?.points).toEqual(
        Array.from({ length: DATASET.sampleCount }, (_, i) => [
          start + 15 * i,
          rounded(Number(temperature?.value(i))),
        ]),
      );
    });

    it("time=now-5m: the same vector as the absolute time, evaluated at that instant", async () => {
      const now = end * 1000 + 250;
      const fiveMinutesEarlier = end - 300 + 0.25;
      const relative = (await callTool(
        ExecuteQuery,
        { query: "test_requests_total", time: "now-5m" },
        call(now),
      )) as Vector;
      const absolute = await callTool(
        ExecuteQuery,
        { query: "test_requests_total", time: String(fiveMinutesEarlier) },
        call(now),
      );
      expect(relative).toEqual(absolute);
      expect(relative.result.map((sample) => sample.value)).toEqual([
        [fiveMinutesEarlier, String(10 * sampleIndexAt(fiveMinutesEarlier))],
        [fiveMinutesEarlier, String(4 * sampleIndexAt(fiveMinutesEarlier))],
      ]);
      expect(sent().map((params) => params.get("time"))).toEqual(["1700003300.25", "1700003300.25"]);
    });

    it("absolute times are sent exactly as given, whatever the clock says", async () => {
      const times = ["2023-11-14T22:14:05Z", "2023-11-14T23:14:05.5+01:00", `${start + 15}.50`, String(end)];
      for (const time of times) {
        await callTool(ExecuteQuery, { query: "test_temperature_celsius", time }, call(0));
      }
      expect(sent().map((params) => params.get("time"))).toEqual(times);
    });
  });

  describe("with the real clock", () => {
    it("time=now-5m evaluates five minutes before the call", async () => {
      const before = Date.now();
      const result = (await callTool(ExecuteQuery, { query: "time()", time: "now-5m" }, call())) as Scalar;
      const after = Date.now();
      const [evaluatedAt, value] = result.result;
      expect(Math.round(evaluatedAt * 1000)).toBeGreaterThanOrEqual(before - 300_000);
      expect(Math.round(evaluatedAt * 1000)).toBeLessThanOrEqual(after - 300_000);
      expect(Number(value)).toBeCloseTo(evaluatedAt, 3);
    });

    it("start=now-1h, end=now read the clock once: 61 steps of a minute, the last one now", async () => {
      const before = Date.now();
      const result = (await callTool(
        ExecuteRangeQuery,
        { query: "time()", start: "now-1h", end: "now", step: "1m" },
        call(),
      )) as Matrix;
      const after = Date.now();
      const values = queryPoints(result)[0]?.points ?? [];
      expect(values).toHaveLength(61);
      const first = Math.round((values[0]?.[0] ?? 0) * 1000);
      const last = Math.round((values[60]?.[0] ?? 0) * 1000);
      expect(last - first).toBe(3_600_000);
      expect(last).toBeGreaterThanOrEqual(before);
      expect(last).toBeLessThanOrEqual(after);
    });
  });
});
