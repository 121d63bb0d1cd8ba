import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import { ListCollector } from "../../src/results/entryList.js";
import type { Budget } from "../../src/results/fit.js";
import { metricNamesSpec } from "../../src/results/metricNames.js";
import { parseSample, rfc3339, rounded } from "../../src/results/numbers.js";
import type { QueryAsked } from "../../src/results/queryResult.js";
import type { Order } from "../../src/results/ranking.js";
import { type Ranking, Selection } from "../../src/results/selection.js";
import { estimateTokens } from "../../src/results/tokens.js";
import {
  type CutValue,
  matrixAnswer,
  plainStats,
  type QueryData,
  type RangeSeries,
  rendered,
  sameStatistic,
  type TableSeries,
  tableSeries,
  tableValue,
  vectorAnswer,
} from "../support/cutResults.js";

const RANGE = { start: 1_700_000_000, end: 1_700_000_000 + 3600 * 6, step: 60 };
const TIME = 1_700_000_000;
const budgets = fc.record({
  tokens: fc.integer({ min: 1_000, max: 12_000 }),
  bytes: fc.oneof(fc.constant(1_000_000), fc.integer({ min: 4_000, max: 60_000 })),
});
const orders = fc.constantFrom<Order>("unusual", "highest", "lowest");

/** Runs a property, then checks that the branches it asserts in ran at least `min` times each. */
function checkBranches<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  runs: number,
  counts: Record<string, number>,
  min = 5,
): Promise<void> {
  return fc.assert(property, { numRuns: runs }).then(() => {
    for (const [branch, count] of Object.entries(counts))
      expect(count, `branch "${branch}" ran`).toBeGreaterThanOrEqual(min);
  });
}

/** Every series of the answer, keyed by its labels as JSON (key order as Prometheus sent them). */
function byLabels(data: QueryData): Map<string, RangeSeries> {
  const map = new Map<string, RangeSeries>();
  for (const series of data.result as RangeSeries[]) map.set(labelsKey(series.metric), series);
  return map;
}

function labelsKey(labels: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The series of a row: its labels merged with the table's common labels. */
function rowLabels(value: CutValue, row: unknown[]): Record<string, unknown> {
  const table = value.series_stats;
  if (table === undefined) return {};
  return tableSeries({ ...table, rows: [row] })[0]?.labels ?? {};
}

describe("a cut range result", () => {
  it("stays within the budget, says so first, and its table reconstructs and describes every series exactly", async () => {
    const counts = { cut: 0, whole: 0, tableWhole: 0, tableCut: 0 };
    const property = fc.asyncProperty(matrixAnswer(RANGE), budgets, orders, async (data, budget, order) => {
      const asked: QueryAsked = { query: "metric_total", range: RANGE, order, form: "exact" };
      const { texts, json, structured } = await rendered(data, budget, asked);
      expect(json).toEqual(structured);
      expect(estimateTokens(texts.join(""))).toBeLessThanOrEqual(budget.tokens);
      expect(Buffer.byteLength(texts.join(""))).toBeLessThanOrEqual(budget.bytes);
      const table = json.series_stats;
      if (json.truncated === undefined) {
        counts.whole++;
        const { series_stats: _, ...answer } = json;
        expect(answer).toEqual(data);
        // Every answer of more than one series carries its table, whole or cut.
        expect(table === undefined).toBe(data.result.length < 2);
        if (table === undefined) return;
      } else {
        counts.cut++;
        // The marker and its note come first: a client trimming the text from the end keeps them.
        expect(texts[0]?.startsWith('{"truncated":{"note":"')).toBe(true);
        expect(texts).toHaveLength(1);
      }
      if (table === undefined) throw new Error("a cut range result has series_stats");
      const numbers = ["min", "max", "avg", "last", "samples", "max_at", "changed_at", "before", "after"];
      expect(
        [...table.columns, ...Object.keys(table.same ?? {})].filter((name) => numbers.includes(name)).sort(),
      ).toEqual([...numbers].sort());
      const series = byLabels(data);
      const missing = json.truncated?.rows_missing ?? 0;
      const rows = tableSeries(table);
      expect(rows.length + missing).toBe(data.result.length);
      if (missing === 0) counts.tableWhole++;
      else counts.tableCut++;
      const seen = new Set<string>();
      for (const { labels, cells } of rows) {
        const key = labelsKey(labels);
        const original = series.get(key);
        if (original === undefined) throw new Error(`row ${key} names no series`);
        expect(seen.has(key)).toBe(false);
        seen.add(key);
        const want = plainStats(original.values);
        expect(sameStatistic(tableValue(cells.min), want.min)).toBe(true);
        expect(sameStatistic(tableValue(cells.max), want.max)).toBe(true);
        // A mean of samples of both signs cancels: any summation is exact only to a few units in the
        // last place of the largest sample, per sample (e.g. 0, 999999999993.65, -999999999997.46).
        const largest = Math.max(0, ...original.values.map(([, text]) => Math.abs(parseSample(text))));
        const summationError = Number.isFinite(largest) ? want.samples * Number.EPSILON * largest : 0;
        expect(sameStatistic(tableValue(cells.avg), want.avg, 1e-9, summationError)).toBe(true);
        expect(sameStatistic(tableValue(cells.last), want.last)).toBe(true);
        expect(cells.samples).toBe(want.samples);
        expect(cells.max_at).toBe(Number.isNaN(want.maxAt) ? null : rfc3339(want.maxAt));
      }
    });
    await checkBranches(property, 250, counts);
  }, 120_000);

  it("keeps every returned curve's bucket extremes: each bucket's min and max are points of it, at their times", async () => {
    const counts = { downsampled: 0, full: 0 };
    // Six hours at 60 s is more steps than a curve keeps; one hour fits whole.
    const ranges = fc.oneof(
      { weight: 1, arbitrary: fc.constant(RANGE) },
      { weight: 2, arbitrary: fc.constant({ ...RANGE, end: RANGE.start + 3600 }) },
    );
    const answers = ranges.chain((range) => fc.tuple(fc.constant(range), matrixAnswer(range, 12)));
    const property = fc.asyncProperty(
      answers,
      fc.double({ min: 0.3, max: 0.95, noNaN: true }),
      async ([range, data], share) => {
        // A share of what the whole answer costs: always cut, often with room for every point of the
        // first curves (rounded values and runs cost less than Prometheus's own text).
        const tokens = Math.max(1_000, Math.floor(estimateTokens(JSON.stringify(data)) * share));
        const { json } = await rendered(
          data,
          { tokens, bytes: 1_000_000 },
          { query: "m", range, order: "unusual", form: "exact" },
        );
        if (json.truncated === undefined) return;
        const width = json.truncated.downsampled?.returned_step_seconds ?? range.step;
        if (json.truncated.downsampled) counts.downsampled++;
        else counts.full++;
        const series = byLabels(data);
        for (const curve of json.result as RangeSeries[]) {
          const original = series.get(labelsKey(curve.metric));
          if (original === undefined) throw new Error("a curve names no series");
          // Every point is a real sample, its value rounded.
          const real = new Set(original.values.map(([time, value]) => `${time} ${roundedText(value)}`));
          for (const [time, value] of curve.values) expect(real.has(`${time} ${value}`)).toBe(true);
          const buckets = new Map<number, Array<[number, number]>>();
          for (const [time, text] of original.values) {
            const value = parseSample(text);
            if (Number.isNaN(value)) continue;
            const bucket = Math.floor((time - range.start) / width);
            buckets.set(bucket, [...(buckets.get(bucket) ?? []), [time, value]]);
          }
          for (const samples of buckets.values()) {
            const low = Math.min(...samples.map(([, value]) => value));
            const high = Math.max(...samples.map(([, value]) => value));
            expect(onCurve(curve.values, samples, rounded(low)), `low ${low}`).toBe(true);
            expect(onCurve(curve.values, samples, rounded(high)), `high ${high}`).toBe(true);
          }
          // The series' last sample ends its curve.
          expect(curve.values.at(-1)?.[0]).toBe(original.values.at(-1)?.[0]);
          // Not downsampled, a curve has every sample but NaN ones (gaps) and the inside of runs of
          // equal values, and its last whatever it is; every sample is on it (checked above).
          if (!json.truncated.downsampled) {
            const shown = original.values.filter(
              ([, v], i) => v !== "NaN" || i === original.values.length - 1,
            );
            expect(curve.values.length).toBeLessThanOrEqual(shown.length);
          }
        }
      },
    );
    await checkBranches(property, 200, counts, 3);
  }, 120_000);
});

/**
 * A bucket's extreme is on the curve: a point of the bucket with that value, or inside a run of that
 * value the curve draws from a point before the bucket's samples to one after them.
 */
function onCurve(curve: Array<[number, string]>, bucket: Array<[number, number]>, value: number): boolean {
  const times = bucket.map(([time]) => time);
  if (curve.some(([time, text]) => times.includes(time) && parseSample(text) === value)) return true;
  const first = Math.min(...times);
  const last = Math.max(...times);
  return curve.some(
    ([time, text], index) =>
      time <= first &&
      parseSample(text) === value &&
      (curve[index + 1]?.[0] ?? Number.NEGATIVE_INFINITY) >= last &&
      parseSample(curve[index + 1]?.[1] ?? "") === value,
  );
}

function roundedText(text: string): string {
  const value = parseSample(text);
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(rounded(value));
}

describe("the order of a cut", () => {
  /** A group of series around a typical level, and one planted far above or below it. */
  const planted = fc.record({
    size: fc.integer({ min: 12, max: 60 }),
    level: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    spread: fc.double({ min: 0, max: 1, noNaN: true }),
    seed: fc.integer(),
    up: fc.boolean(),
    at: fc.nat(),
  });

  it("unusual puts a planted outlier first in either direction, in the table and in result", async () => {
    const counts = { up: 0, down: 0 };
    const property = fc.asyncProperty(planted, fc.boolean(), async (plant, instant) => {
      const { size, level, spread, up } = plant;
      const random = mulberry(plant.seed);
      const scale = Math.max(1, Math.abs(level)) * (spread + 0.01);
      const outlier = plant.at % size;
      const value = (index: number, step: number) =>
        index === outlier
          ? level + (up ? 50 : -50) * scale
          : level + (random() - 0.5) * scale * (1 + 0.1 * Math.sin(step));
      const data: QueryData = instant
        ? {
            resultType: "vector",
            result: Array.from({ length: size }, (_, index) => ({
              metric: { pod: `pod-${index}` },
              value: [TIME, String(value(index, 0))],
            })),
          }
        : {
            resultType: "matrix",
            result: Array.from({ length: size }, (_, index) => ({
              metric: { pod: `pod-${index}` },
              values: Array.from({ length: 361 }, (_, step): [number, string] => [
                RANGE.start + step * RANGE.step,
                String(value(index, step)),
              ]),
            })),
          };
      // Tight enough that a vector of a dozen samples is cut too.
      const budget = { tokens: instant ? 300 : 4_000, bytes: 1_000_000 };
      const asked: QueryAsked = instant
        ? { query: "q", time: TIME, order: "unusual", limit: 3, form: "exact" }
        : { query: "q", range: RANGE, order: "unusual", form: "exact" };
      const { json } = await rendered(data, budget, asked);
      if (json.truncated === undefined) throw new Error("the planted group was not cut");
      if (up) counts.up++;
      else counts.down++;
      const first = json.result[0] as { metric: { pod: string } };
      expect(first.metric.pod).toBe(`pod-${outlier}`);
      expect(rowLabels(json, json.series_stats?.rows[0] ?? []).pod).toBe(`pod-${outlier}`);
    });
    await checkBranches(property, 120, counts);
  }, 120_000);

  it("highest and lowest rank by peak and by dip; ties and NaN keep Prometheus's order, NaN last", async () => {
    const property = fc.asyncProperty(
      matrixAnswer(RANGE, 25),
      fc.constantFrom<Order>("highest", "lowest"),
      async (data, order) => {
        const { json } = await rendered(
          data,
          { tokens: 3_000, bytes: 1_000_000 },
          { query: "m", range: RANGE, order, form: "compact" },
        );
        if (json.truncated === undefined) return;
        const table = json.series_stats;
        if (table === undefined) throw new Error("a cut answer has series_stats");
        const keyOf = ({ cells }: TableSeries) =>
          order === "highest" ? tableValue(cells.max) : -tableValue(cells.min);
        const keys = tableSeries(table).map(keyOf);
        for (let i = 1; i < keys.length; i++) {
          const [a, b] = [keys[i - 1] as number, keys[i] as number];
          if (Number.isNaN(a)) expect(Number.isNaN(b)).toBe(true);
          else if (!Number.isNaN(b)) expect(a).toBeGreaterThanOrEqual(b);
        }
      },
    );
    await fc.assert(property, { numRuns: 100 });
  }, 60_000);
});

describe("a cut instant vector", () => {
  it("has every sample in the table (value, labels), the first in order whole in result, within the budget", async () => {
    const counts = { cut: 0, limited: 0, sized: 0 };
    const property = fc.asyncProperty(
      vectorAnswer(TIME),
      fc.record({ tokens: fc.integer({ min: 300, max: 4_000 }), bytes: fc.constant(1_000_000) }),
      fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
      async (data, budget, limit) => {
        const { texts, json } = await rendered(data, budget, {
          query: "up",
          time: TIME,
          order: "unusual",
          limit,
          form: "exact",
        });
        expect(estimateTokens(texts.join(""))).toBeLessThanOrEqual(budget.tokens);
        if (json.truncated === undefined) {
          const { series_stats: table, ...answer } = json;
          expect(answer).toEqual(data);
          expect(table === undefined).toBe(data.result.length < 2);
          return;
        }
        counts.cut++;
        if (json.truncated.cut_by === "limit") counts.limited++;
        else counts.sized++;
        if (limit !== undefined) expect(json.result.length).toBeLessThanOrEqual(limit);
        // Samples in result are Prometheus's, untouched.
        for (const sample of json.result) expect(data.result).toContainEqual(sample);
        const table = json.series_stats;
        if (table === undefined) throw new Error("a cut vector has series_stats");
        expect([...table.columns, ...Object.keys(table.same ?? {})]).toContain("value");
        const rows = tableSeries(table);
        expect(rows.length + (json.truncated.rows_missing ?? 0)).toBe(data.result.length);
        const samples = new Map(
          (data.result as unknown as Array<{ metric: Record<string, string>; value: [number, string] }>).map(
            (s) => [labelsKey(s.metric), s.value[1]],
          ),
        );
        for (const { labels, cells } of rows) {
          const text = samples.get(labelsKey(labels));
          if (text === undefined) throw new Error("a row names no sample");
          expect(sameStatistic(tableValue(cells.value), parseSample(text))).toBe(true);
        }
        if (table.rows.length > 0) expect(table.time).toBe(rfc3339(TIME));
      },
    );
    await checkBranches(property, 200, counts);
  }, 120_000);
});

describe("the indented layout (PYTHON_COMPAT)", () => {
  it("is cut to the budget as well, and keeps series in view", async () => {
    const counts = { cut: 0 };
    const property = fc.asyncProperty(matrixAnswer(RANGE, 20), async (data) => {
      const budget: Budget = { tokens: 6_000, bytes: 1_000_000 };
      const { texts, json } = await rendered(
        data,
        budget,
        { query: "m", range: RANGE, order: "highest", form: "exact" },
        2,
      );
      expect(texts[0]).toBe(JSON.stringify(json, null, 2));
      expect(estimateTokens(texts[0] as string)).toBeLessThanOrEqual(budget.tokens);
      if (json.truncated === undefined) return;
      counts.cut++;
      expect(json.series_stats?.rows.length).toBeGreaterThan(0);
      expect(json.result.length).toBeGreaterThan(0);
    });
    await checkBranches(property, 60, counts);
  }, 120_000);
});

describe("Selection", () => {
  const byNumber: Ranking<{ key: number }, number> = { keyOf: (item) => item.key, compare: (a, b) => a - b };

  it("keeps exactly the longest best-ranked run that fits, as a full sort would", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            key: fc.integer({ min: 0, max: 20 }),
            tokens: fc.integer({ min: 0, max: 30 }),
            bytes: fc.integer({ min: 0, max: 50 }),
          }),
          { maxLength: 80 },
        ),
        fc.record({ tokens: fc.integer({ min: 0, max: 300 }), bytes: fc.integer({ min: 0, max: 400 }) }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        (items, budget, maxCount) => {
          const selection = new Selection({ budget, maxCount }, byNumber);
          for (const item of items) selection.offer(item, { tokens: item.tokens, bytes: item.bytes });
          const { kept, offered } = selection.result();
          const sorted = items
            .map((item, arrival) => ({ item, arrival }))
            .sort((a, b) => a.item.key - b.item.key || a.arrival - b.arrival);
          const expected: typeof items = [];
          let tokens = 0;
          let bytes = 0;
          for (const { item } of sorted) {
            if (tokens + item.tokens > budget.tokens || bytes + item.bytes > budget.bytes) break;
            if (maxCount !== undefined && expected.length >= maxCount) break;
            tokens += item.tokens;
            bytes += item.bytes;
            expected.push(item);
          }
          expect(offered).toBe(items.length);
          expect(kept.map((entry) => entry.value)).toEqual(
            expected.length === items.length ? items : expected,
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("cutting a metric name list", () => {
  it("returns the first names in code-point order that fit, marked first exactly when cut", async () => {
    const counts = { cut: 0, whole: 0 };
    const property = fc.asyncProperty(
      fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/), { maxLength: 600 }),
      fc.integer({ min: 1_000, max: 4_000 }),
      fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
      async (names, tokens, limit) => {
        const budget = { tokens, bytes: 1_000_000 };
        const collector = new ListCollector(metricNamesSpec(), { budget, limit });
        const encoder = new TextEncoder();
        for (const name of names) collector.element(encoder.encode(JSON.stringify(name)));
        const list = collector.finish([], 0);
        if (!list) throw new Error("a list of strings was not accepted");
        const out = await renderToolResult(list, budget);
        const text = (out.content[0] as { text: string }).text;
        const json = JSON.parse(text) as { metrics: string[]; truncated?: { total: { names: number } } };
        const sorted = [...names].sort();
        expect(json.metrics).toEqual(sorted.slice(0, json.metrics.length));
        expect(estimateTokens(text)).toBeLessThanOrEqual(budget.tokens);
        if (limit !== undefined) expect(json.metrics.length).toBeLessThanOrEqual(limit);
        if (json.truncated === undefined) {
          counts.whole++;
          expect(json.metrics).toEqual(sorted);
          return;
        }
        counts.cut++;
        expect(text.startsWith('{"truncated":{"note":"')).toBe(true);
        expect(json.metrics.length).toBeLessThan(names.length);
        expect(json.truncated.total.names).toBe(names.length);
      },
    );
    await checkBranches(property, 200, counts);
  }, 60_000);
});

/** A small deterministic PRNG for planted data (fast-check gives the seed). */
function mulberry(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
