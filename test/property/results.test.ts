import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { MetricNamesCollector } from "../../src/results/metricNames.js";
import { EMPTY_RANGE_HINT, QueryResultCollector } from "../../src/results/queryResult.js";
import { type Ranking, Selection } from "../../src/results/selection.js";
import { rankValue } from "../../src/results/series.js";
import { renderToolResult } from "../../src/server.js";

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/** What a client sees: the text items, the JSON of the first, and structuredContent. */
function rendered(result: Parameters<typeof renderToolResult>[0], budget: number, indent?: number) {
  const out = renderToolResult(result, budget, indent);
  const texts = out.content.map((item) => (item as { text: string }).text);
  return {
    texts,
    json: JSON.parse(texts[0] as string) as Record<string, unknown>,
    structured: out.structuredContent,
  };
}

// Prometheus's sample values, and values no Prometheus sends (the cut must survive them too).
const sampleValue = fc.oneof(
  fc.double({ noNaN: true }).map(String),
  fc.constantFrom("NaN", "+Inf", "-Inf", "0", "1e308"),
  fc.string({ maxLength: 6 }),
);
const labels = fc.dictionary(
  fc.oneof(fc.constantFrom("__name__", "job", "pod", "namespace"), fc.string({ minLength: 1, maxLength: 6 })),
  fc.string({ maxLength: 30 }),
  { maxKeys: 5 },
);
const time = fc.oneof(
  fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }),
  fc.double({ min: 0, max: 2e9, noNaN: true }),
);
const pair = fc.tuple(time, sampleValue);
const histogram = fc.tuple(time, fc.record({ count: sampleValue, sum: sampleValue }));
const vectorSample = fc.oneof(
  fc.record({ metric: labels, value: pair }),
  fc.record({ metric: labels, histogram }),
);
const matrixSeries = fc.oneof(
  fc.record({ metric: labels, values: fc.array(pair, { maxLength: 120 }) }),
  fc.record({ metric: labels, histograms: fc.array(histogram, { maxLength: 20 }) }),
  fc.record({
    metric: labels,
    values: fc.array(pair, { maxLength: 40 }),
    histograms: fc.array(histogram, { maxLength: 5 }),
  }),
);
/** Any element at all: the cut must carry shapes it does not understand as they are. */
const oddElement = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.record({ metric: fc.jsonValue({ maxDepth: 1 }) }),
);

const queryAnswer = fc.oneof(
  fc.record({
    resultType: fc.constant("vector"),
    result: fc.array(fc.oneof({ weight: 9, arbitrary: vectorSample }, { weight: 1, arbitrary: oddElement }), {
      maxLength: 120,
    }),
  }),
  fc.record({
    resultType: fc.constant("matrix"),
    result: fc.array(fc.oneof({ weight: 9, arbitrary: matrixSeries }, { weight: 1, arbitrary: oddElement }), {
      maxLength: 60,
    }),
  }),
  fc.record({ resultType: fc.constant("scalar"), result: pair }),
  fc.record({ resultType: fc.constant("string"), result: fc.tuple(time, fc.string({ maxLength: 200 })) }),
);

function collect(data: { resultType: string; result: readonly unknown[] }, budget: number, limit?: number) {
  const collector = new QueryResultCollector({ maxBytes: budget, limit }, { query: "q", step: "60s" });
  for (const element of data.result) collector.element(element, bytesOf(element));
  return collector.finish({ ...data, result: [] }, bytesOf(data));
}

/** Reference ranking: by rankValue, largest first, ties in the order given. */
function ranked(elements: readonly unknown[]): number[] {
  return elements
    .map((element, index) => ({ index, rank: rankValue(element) }))
    .sort((a, b) => (a.rank === b.rank ? a.index - b.index : a.rank > b.rank ? -1 : 1))
    .map((entry) => entry.index);
}

describe("cutting a query result to a budget", () => {
  test.prop(
    [
      queryAnswer,
      fc.integer({ min: 1_000, max: 60_000 }),
      fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined }),
      fc.boolean(),
    ],
    { numRuns: 300 },
  )(
    "stays valid, within budget, the best-ranked real series, marked truncated exactly when cut",
    (data, budget, limit, indented) => {
      const { texts, json, structured } = rendered(
        collect(data, budget, limit),
        budget,
        indented ? 2 : undefined,
      );
      // The text is the structured result, as JSON; the note (if any) is a second item.
      expect(json).toEqual(structured);
      expect(json.resultType).toBe(data.resultType);
      const result = json.result as unknown[];

      if (data.resultType === "scalar" || data.resultType === "string") {
        expect(result).toEqual(data.result);
        expect(json.truncated).toBeUndefined();
        return;
      }
      const total = texts.reduce((sum, text) => sum + Buffer.byteLength(text, "utf8"), 0);
      expect(total).toBeLessThanOrEqual(budget);

      const cut = json.truncated as
        | { total: Record<string, number>; returned: Record<string, number>; thinned?: { every: number } }
        | undefined;
      if (cut === undefined) {
        expect(result).toEqual(data.result);
        // A query that matched nothing gets a hint after its JSON, except in the Python layout.
        const hinted = result.length === 0 && !indented;
        expect(texts).toEqual(hinted ? [texts[0], EMPTY_RANGE_HINT] : [texts[0]]);
        return;
      }
      expect(texts).toHaveLength(2);
      expect(cut.total.series).toBe(data.result.length);
      expect(cut.returned.series).toBe(result.length);
      if (limit !== undefined) expect(result.length).toBeLessThanOrEqual(limit);
      // The returned series are the first of the ranking, in its order: whole, or the top one thinned.
      const order = ranked(data.result);
      if (cut.thinned) {
        expect(result).toHaveLength(1);
        const top = data.result[order[0] as number] as {
          metric: unknown;
          values?: unknown[];
          histograms?: unknown[];
        };
        const [only] = result as Array<typeof top>;
        expect(only?.metric).toEqual(top.metric);
        expect(only?.values).toEqual(top.values?.filter((_, i) => i % (cut.thinned?.every ?? 1) === 0));
      } else {
        expect(result).toEqual(order.slice(0, result.length).map((index) => data.result[index]));
        expect(result.length < data.result.length).toBe(true);
      }
    },
  );
});

describe("Selection", () => {
  const byNumber: Ranking<{ key: number }, number> = { keyOf: (item) => item.key, compare: (a, b) => a - b };

  test.prop(
    [
      fc.array(fc.record({ key: fc.integer({ min: 0, max: 20 }), bytes: fc.integer({ min: 0, max: 50 }) }), {
        maxLength: 80,
      }),
      fc.integer({ min: 0, max: 400 }),
      fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
    ],
    { numRuns: 500 },
  )(
    "keeps exactly the longest best-ranked run that fits, as a full sort would",
    (items, maxBytes, maxCount) => {
      const selection = new Selection({ maxBytes, maxCount }, byNumber);
      for (const item of items) selection.offer(item, item.bytes);
      const { kept, offered, offeredBytes } = selection.result();

      const sorted = items
        .map((item, arrival) => ({ item, arrival }))
        .sort((a, b) => a.item.key - b.item.key || a.arrival - b.arrival);
      const expected: typeof items = [];
      let used = 0;
      for (const { item } of sorted) {
        if (used + item.bytes > maxBytes || (maxCount !== undefined && expected.length >= maxCount)) break;
        used += item.bytes;
        expected.push(item);
      }
      expect(offered).toBe(items.length);
      expect(offeredBytes).toBe(items.reduce((sum, item) => sum + item.bytes, 0));
      if (expected.length === items.length) {
        // Nothing dropped: arrival order, untouched.
        expect(kept.map((entry) => entry.value)).toEqual(items);
      } else {
        expect(kept.map((entry) => entry.value)).toEqual(expected);
      }
    },
  );
});

describe("cutting a metric name list", () => {
  test.prop(
    [
      fc.uniqueArray(fc.string({ maxLength: 40 }), { maxLength: 400 }),
      fc.integer({ min: 1_000, max: 20_000 }),
      fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
    ],
    { numRuns: 200 },
  )(
    "returns the first names in code-point order that fit, marked exactly when cut",
    (names, budget, limit) => {
      const collector = new MetricNamesCollector({ maxBytes: budget, limit });
      for (const name of names) collector.element(name, bytesOf(name));
      const list = collector.finish([], bytesOf(names));
      if (!list) throw new Error("a list of strings was not accepted");
      const { texts, json } = rendered(list, budget);
      const sorted = [...names].sort();
      const metrics = json.metrics as string[];
      expect(metrics).toEqual(sorted.slice(0, metrics.length));
      expect(texts.reduce((sum, text) => sum + Buffer.byteLength(text, "utf8"), 0)).toBeLessThanOrEqual(
        budget,
      );
      if (json.truncated === undefined) expect(metrics).toEqual(sorted);
      else {
        expect(metrics.length).toBeLessThan(names.length);
        expect((json.truncated as { total: { names: number } }).total.names).toBe(names.length);
      }
      if (limit !== undefined) expect(metrics.length).toBeLessThanOrEqual(limit);
    },
  );
});
