import { describe, expect, it } from "vitest";
import { renderToolResult } from "../../src/mcp/toolResult.js";
import { CurveSpace } from "../../src/results/curves.js";
import { Description, MAX_DESCRIBED } from "../../src/results/description.js";
import type { Fittable } from "../../src/results/fit.js";
import { ranked, unusualness } from "../../src/results/ranking.js";
import { estimateTokens, TokenTally } from "../../src/results/tokens.js";
import { type QueryData, rendered, tableSeries } from "../support/cutResults.js";

const TIME = 1_700_000_000;

describe("regressions of the byte budget's arithmetic", () => {
  it("an instant query of 660 samples (~140 KB) returns samples and a table, not 0 samples", async () => {
    // Before: "Cut to fit the result size limit of 0 bytes" and an empty result.
    const data: QueryData = {
      resultType: "vector",
      result: Array.from({ length: 660 }, (_, i) => ({
        metric: {
          __name__: "http_request_duration_seconds_bucket",
          namespace: `team-${i % 11}`,
          pod: `api-${(i * 7919).toString(36)}-x2k4p`,
          service: `svc-${i % 8}`,
          le: ["0.005", "0.01", "0.05", "0.1", "0.5", "1", "+Inf"][i % 7] as string,
        },
        value: [TIME, String(1000 + ((i * 37) % 660) * 1.37)],
      })),
    };
    expect(Buffer.byteLength(JSON.stringify(data))).toBeGreaterThan(100_000);
    const budget = { tokens: 20_000, bytes: 1_000_000 };
    const { texts, json } = await rendered(data, budget, {
      query: "q",
      time: TIME,
      order: "unusual",
      form: "exact",
    });
    expect(json.truncated?.cut_by).toBe("size");
    expect(json.result.length).toBeGreaterThanOrEqual(10);
    expect(json.series_stats?.rows.length).toBeGreaterThan(300);
    expect(estimateTokens(texts[0] as string)).toBeLessThanOrEqual(budget.tokens);
    expect(estimateTokens(texts[0] as string)).toBeGreaterThan(0.9 * budget.tokens);
  });

  it("under PYTHON_COMPAT (indented) a range answer cut by size keeps series, not none", async () => {
    // Before: "Cut to fit the result size limit of -15,623 bytes" and no series at all.
    const data: QueryData = {
      resultType: "matrix",
      result: Array.from({ length: 60 }, (_, s) => ({
        metric: { __name__: "cpu", pod: `pod-${s}` },
        values: Array.from({ length: 1441 }, (_, i): [number, string] => [
          TIME + 60 * i,
          String(Math.sin(i / 50 + s) + s),
        ]),
      })),
    };
    const range = { start: TIME, end: TIME + 86_400, step: 60 };
    const budget = { tokens: 20_000, bytes: 1_000_000 };
    const { texts, json } = await rendered(
      data,
      budget,
      { query: "cpu", range, order: "highest", form: "exact" },
      2,
    );
    expect(texts[0]).toBe(JSON.stringify(json, null, 2));
    expect(json.result.length).toBeGreaterThanOrEqual(10);
    expect(json.series_stats?.rows).toHaveLength(60);
    expect(estimateTokens(texts[0] as string)).toBeLessThanOrEqual(budget.tokens);
  });
});

describe("CurveSpace", () => {
  it("merging buckets (more series than fit, or a coarser step written) equals bucketing the raw points at that width", () => {
    const range = { start: 0, end: 10_000, step: 10 };
    const points = Array.from({ length: 1001 }, (_, i): [number, number] => [
      10 * i,
      Math.sin(i * 1.7) * 100 + (i % 13),
    ]);
    // 64 buckets a curve, but room for only 3 curves of them: the second and third curve coarsen the space.
    const space = new CurveSpace(range, 64, 3 * 64);
    const first = space.curve(false);
    for (const [t, v] of points) first.add(t, v);
    const widthBefore = space.width;
    space.curve(false);
    space.curve(false);
    space.curve(false);
    expect(space.width).toBe(2 * widthBefore);
    for (const factor of [1, 3, 7]) {
      const width = space.width * factor;
      const expected: number[] = [];
      for (let start = 0; start <= 10_000; start += width) {
        const inBucket = points.filter(([t]) => t >= start && t < start + width);
        if (inBucket.length === 0) continue;
        const low = inBucket.reduce((a, b) => (b[1] < a[1] ? b : a));
        const high = inBucket.reduce((a, b) => (b[1] > a[1] ? b : a));
        if (low[0] === high[0]) expected.push(low[0]);
        else expected.push(...[low[0], high[0]].sort((a, b) => a - b));
      }
      const last = points.at(-1)?.[0] as number;
      if (expected.at(-1) !== last) expected.push(last);
      expect(first.points(factor).map(([t]) => t)).toEqual(expected);
    }
  });
});

describe("ranking by how unusual", () => {
  it("finds the one target down among 127 up, where the median absolute deviation is 0", () => {
    const up = Array.from({ length: 128 }, () => ({ peak: 1, dip: 1, last: 1 }));
    up[77] = { peak: 1, dip: 0, last: 0 };
    expect(ranked(up, "unusual")[0]).toBe(77);
    expect(unusualness(up)[0]).toBe(0);
  });

  it("an infinite value is the most unusual; a series of NaN only comes last", () => {
    const items = [
      { peak: 1, dip: 1, last: 1 },
      { peak: Number.NaN, dip: Number.NaN, last: Number.NaN },
      { peak: 1, dip: 1, last: 1 },
      { peak: 5, dip: 1, last: 1 },
      { peak: Number.POSITIVE_INFINITY, dip: 1, last: 1 },
    ];
    expect(ranked(items, "unusual")).toEqual([4, 3, 0, 2, 1]);
    expect(ranked(items, "highest")).toEqual([4, 3, 0, 2, 1]);
    expect(ranked(items, "lowest")).toEqual([0, 2, 3, 4, 1]);
  });
});

describe("more series than are described", () => {
  it("keeps the most unusual MAX_DESCRIBED of them, says how many rows are missing, and their curves stay whole", async () => {
    // Twice MAX_DESCRIBED and one more series of three points: the least unusual half goes while reading.
    const count = 2 * MAX_DESCRIBED + 1;
    const planted = count - 1;
    const data: QueryData = {
      resultType: "matrix",
      result: Array.from({ length: count }, (_, s) => ({
        metric: { pod: `pod-${s}` },
        values: [0, 1, 2].map((i): [number, string] => [
          TIME + 60 * i,
          String(s === planted ? 1e9 : (s % 100) + i),
        ]),
      })),
    };
    const range = { start: TIME, end: TIME + 120, step: 60 };
    const asked = { query: "q", range, order: "unusual", form: "exact" } as const;
    const description = new Description(asked, { tokens: 20_000, bytes: 1_000_000 });
    for (const series of data.result) description.add(series);
    const described = description.result("series");
    expect(described.items).toHaveLength(MAX_DESCRIBED + 1);
    expect(described.dropped).toBe(MAX_DESCRIBED);
    const { json } = await rendered(data, { tokens: 20_000, bytes: 1_000_000 }, asked);
    const truncated = json.truncated;
    expect(truncated?.total.series).toBe(count);
    // A collapsed row stands for each series it lists.
    const table = json.series_stats;
    expect((table ? tableSeries(table).length : 0) + (truncated?.rows_missing ?? 0)).toBe(count);
    // The planted series came last and leads, its points as sent.
    const first = json.result[0] as { metric: { pod: string }; values: [number, string][] };
    expect(first.metric.pod).toBe(`pod-${planted}`);
    expect(first.values).toEqual([
      [TIME, "1000000000"],
      [TIME + 120, "1000000000"],
    ]);
    // Every curve is its series' own points (a run of equal values as its ends), whichever slots moved.
    for (const curve of json.result as Array<{ metric: { pod: string }; values: [number, string][] }>) {
      const s = Number(curve.metric.pod.slice("pod-".length));
      if (s === planted) continue;
      expect(curve.values).toEqual([0, 1, 2].map((i) => [TIME + 60 * i, String((s % 100) + i)]));
    }
  }, 60_000);
});

describe("other shapes of a cut answer", () => {
  it("an instant query's matrix (a range selector) is described from its own samples' span", async () => {
    const data: QueryData = {
      resultType: "matrix",
      result: Array.from({ length: 40 }, (_, s) => ({
        metric: { pod: `pod-${s}` },
        values: Array.from({ length: 20 }, (_, i): [number, string] => [
          TIME - 300 + 15 * i,
          String(s * 100 + i),
        ]),
      })),
    };
    const budget = { tokens: 2_000, bytes: 1_000_000 };
    const { json, texts } = await rendered(data, budget, {
      query: "x[5m]",
      time: TIME,
      order: "highest",
      form: "exact",
    });
    expect(estimateTokens(texts[0] as string)).toBeLessThanOrEqual(budget.tokens);
    // max_at is a column, or written once in `same` where every row has the same.
    expect([...(json.series_stats?.columns ?? []), ...Object.keys(json.series_stats?.same ?? {})]).toContain(
      "max_at",
    );
    const first = json.result[0] as { metric: { pod: string }; values: [number, string][] };
    expect(first.metric.pod).toBe("pod-39");
    // Its first and last samples are on its curve, at their times.
    expect(first.values[0]).toEqual([TIME - 300, "3900"]);
    expect(first.values.at(-1)).toEqual([TIME - 15, "3919"]);
  });

  it("native histograms are ranked and described by their count, and kept as Prometheus sent them", async () => {
    const histogram = (count: number) => ({
      count: String(count),
      sum: String(count * 0.1),
      buckets: [[0, "0.1", "1", String(count)]],
    });
    const data: QueryData = {
      resultType: "matrix",
      result: Array.from({ length: 30 }, (_, s) => ({
        metric: { pod: `pod-${s}` },
        histograms: Array.from({ length: 30 }, (_, i) => [
          TIME + 60 * i,
          histogram(s === 7 ? 1000 + i : s + i),
        ]),
      })),
    };
    const range = { start: TIME, end: TIME + 29 * 60, step: 60 };
    const { json } = await rendered(
      data,
      { tokens: 3_000, bytes: 1_000_000 },
      { query: "h", range, order: "unusual", form: "exact" },
    );
    expect(json.truncated).toBeDefined();
    const first = json.result[0] as { metric: { pod: string }; histograms: Array<[number, unknown]> };
    expect(first.metric.pod).toBe("pod-7");
    expect(first.histograms[0]).toEqual([TIME, histogram(1000)]);
    const row = json.series_stats?.rows[0] ?? [];
    expect(row.slice(1, 5)).toEqual([1000, 1029, 1014.5, 1029]);
  });
});

describe("TokenTally", () => {
  it("after each piece gives the estimate of everything written so far, as one text", () => {
    const pieces = [
      '{"a":[',
      "1700000000,",
      '"0.5"],"b":"checkout-7d9f8b6c5-x2k4p"',
      "}",
      " ünïcode",
      "\n  done",
    ];
    const tally = new TokenTally();
    let written = "";
    for (const piece of pieces) {
      written += piece;
      expect(tally.text(piece).tokens).toBe(estimateTokens(written));
    }
    const bytes = new TokenTally();
    for (const piece of pieces) bytes.bytes(new TextEncoder().encode(piece));
    expect(bytes.tokens).toBe(estimateTokens(written));
  });
});

describe("rendering a result that cuts itself", () => {
  /** A result whose cut overshoots what it is asked for by a fifth, as an estimate that is too low would. */
  const overshooting = (asked: Array<{ tokens: number; bytes: number }>): Fittable => ({
    fit: async (budget) => {
      asked.push(budget);
      const words = Math.floor((budget.tokens * 1.2) / 2);
      return {
        value: { truncated: { note: "cut" }, words: Array.from({ length: words }, (_, i) => `w${i}`) },
      };
    },
  });

  it("asks again with less, until the text is within the budget", async () => {
    const asked: Array<{ tokens: number; bytes: number }> = [];
    const budget = { tokens: 2_000, bytes: 1_000_000 };
    const out = await renderToolResult(overshooting(asked), budget);
    const text = (out.content[0] as { text: string }).text;
    expect(asked.length).toBeGreaterThan(1);
    expect(asked[1]?.tokens).toBeLessThan(budget.tokens);
    expect(estimateTokens(text)).toBeLessThanOrEqual(budget.tokens);
  });

  it("gives up with a clear tool error when even its smallest cut does not fit", async () => {
    const stubborn: Fittable = { fit: async () => ({ value: { words: "w ".repeat(5_000) } }) };
    await expect(renderToolResult(stubborn, { tokens: 1_000, bytes: 1_000_000 })).rejects.toThrow(
      /does not fit this reply's budget \(1000 tokens, 1000000 bytes\), not even cut\. Ask for less/,
    );
  });
});
