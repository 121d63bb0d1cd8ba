import { describe, expect, it } from "vitest";
import type { QueryAsked } from "../../src/results/queryAsked.js";
import { estimateTokens } from "../../src/results/tokens.js";
import { type QueryData, rendered, tableSeries } from "../support/cutResults.js";

const START = 1_795_000_000;
const STEP = 60;
const WIDE = { tokens: 20_000, bytes: 1_000_000 };

/** `count` pods' working set over `points` steps: long labels, each pod its own level and wiggle. */
function fleet(count: number, points: number): QueryData {
  return {
    resultType: "matrix",
    result: Array.from({ length: count }, (_, s) => ({
      metric: {
        __name__: "container_memory_usage_bytes",
        namespace: `team-${s % 3}`,
        pod: `checkout-service-7d9f8b6c4-${(s * 7919).toString(36).padStart(5, "x")}`,
        image: `registry.example.internal/team/checkout-service:5.2.${s % 3}-9f8e7d6c5b4a`,
        node: `ip-10-0-${s % 5}-17.ec2.internal`,
      },
      values: Array.from({ length: points }, (_, i): [number, string] => [
        START + STEP * i,
        String(Math.round(2 ** 28 * (1 + s / 7) + 2 ** 20 * Math.sin(i / 9 + s))),
      ]),
    })),
  };
}

function asked(points: number, summary: boolean): QueryAsked {
  const range = { start: START, end: START + STEP * (points - 1), step: STEP };
  return { query: "container_memory_usage_bytes", range, order: "unusual", form: "compact", summary };
}

const rfc3339 = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");

describe("summary: true", () => {
  it("is the whole table alone, with the range it covers in RFC 3339, when it fits", async () => {
    const data = fleet(12, 61);
    const { texts, json } = await rendered(data, WIDE, asked(61, true));
    expect(Object.keys(json)).toEqual(["resultType", "range", "series_stats"]);
    expect(json).toMatchObject({
      resultType: "matrix",
      range: { start: rfc3339(START), end: rfc3339(START + 60 * STEP), step_seconds: STEP },
    });
    const series = tableSeries(json.series_stats as NonNullable<typeof json.series_stats>);
    expect(series.map(({ labels }) => labels)).toEqual(
      expect.arrayContaining(data.result.map((element) => (element as { metric: unknown }).metric)),
    );
    expect(series).toHaveLength(12);
    expect(estimateTokens(texts[0] as string)).toBeLessThan(estimateTokens(JSON.stringify(data)));
  });

  it("cut to a small budget: `truncated` first, the first rows in the asked order, rows_missing the rest", async () => {
    const data = fleet(120, 61);
    const whole = await rendered(data, WIDE, asked(61, true));
    const everyRow = tableSeries(whole.json.series_stats as NonNullable<typeof whole.json.series_stats>);
    expect(everyRow).toHaveLength(120);

    const budget = { tokens: 2_000, bytes: 1_000_000 };
    const { texts, json } = await rendered(data, budget, asked(61, true));
    expect(Object.keys(json)).toEqual(["truncated", "resultType", "range", "series_stats"]);
    const kept = tableSeries(json.series_stats as NonNullable<typeof json.series_stats>);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(120);
    // The same rows as the whole table's first ones, in its order.
    expect(kept.map(({ labels }) => labels)).toEqual(
      everyRow.slice(0, kept.length).map(({ labels }) => labels),
    );
    expect(json.truncated).toMatchObject({
      cut_by: "size",
      total: { series: 120 },
      returned: { rows: kept.length },
      order: "unusual",
      rows_missing: 120 - kept.length,
    });
    expect(estimateTokens(texts[0] as string)).toBeLessThanOrEqual(budget.tokens);
  });
});

describe("a whole answer that fits alone but not with its table", () => {
  it("is cut instead, and the cut answer's table is complete", async () => {
    const points = 240;
    const data = fleet(4, points);
    const full = await rendered(data, WIDE, asked(points, false));
    expect(full.json.truncated).toBeUndefined();
    const { series_stats: table, ...alone } = full.json;
    const aloneTokens = estimateTokens(JSON.stringify(alone));
    // The budget holds the whole answer, not the whole answer and its table.
    const budget = { tokens: aloneTokens + 10, bytes: 1_000_000 };
    expect(estimateTokens(full.texts[0] as string)).toBeGreaterThan(budget.tokens);

    const { texts, json } = await rendered(data, budget, asked(points, false));
    expect(Object.keys(json)[0]).toBe("truncated");
    expect(json.truncated?.rows_missing).toBeUndefined();
    const series = tableSeries(json.series_stats as NonNullable<typeof json.series_stats>);
    expect(series.map(({ labels }) => labels)).toEqual(
      tableSeries(table as NonNullable<typeof table>).map(({ labels }) => labels),
    );
    expect(series).toHaveLength(4);
    expect(json.result.length).toBeGreaterThan(0);
    expect(estimateTokens(texts[0] as string)).toBeLessThanOrEqual(budget.tokens);
  });
});
