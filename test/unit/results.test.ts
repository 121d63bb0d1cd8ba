import { describe, expect, it } from "vitest";
import { CurveSpace } from "../../src/results/curves.js";
import { ranked, unusualness } from "../../src/results/ranking.js";
import { estimateTokens } from "../../src/results/tokens.js";
import { type QueryData, rendered } from "../support/cutResults.js";

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
    const { texts, json } = await rendered(data, budget, { query: "q", time: TIME, order: "unusual" });
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
    const { texts, json } = await rendered(data, budget, { query: "cpu", range, order: "highest" }, 2);
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
