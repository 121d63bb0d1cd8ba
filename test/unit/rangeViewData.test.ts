import { describe, expect, it } from "vitest";
import { compact, timeTick, utc } from "../../view/format.js";
import { aligned, labelOf, sampleOf, viewInputOf } from "../../view/seriesData.js";

// What the MCP Apps view reads from a tool result and how it writes it (view/): the same modules the
// page runs, without a browser (the browser test is test/e2e/rangeView.test.ts).

const matrix = (result: unknown[], extra: Record<string, unknown> = {}) => ({
  content: [{ type: "text", text: "{}" }],
  structuredContent: { ...extra, resultType: "matrix", result },
});

describe("viewInputOf: what a tool result gives the view", () => {
  it("an ExecuteRangeQuery answer: its series", () => {
    const series = [{ metric: { __name__: "up" }, values: [[1, "1"]] }];
    expect(viewInputOf(matrix(series))).toStrictEqual({ kind: "series", series });
  });

  it("a compact answer: each entry at start + k × step, a bucket's two extremes half a step apart, null none", () => {
    const range = { start: "1970-01-01T00:00:10Z", end: "1970-01-01T00:00:30Z", step_seconds: 5 };
    const series = [{ metric: { __name__: "up" }, values: [1, null, [2, 3], "NaN", "+Inf"] }];
    expect(viewInputOf(matrix(series, { range }))).toStrictEqual({
      kind: "series",
      series: [
        {
          metric: { __name__: "up" },
          values: [
            [10, "1"],
            [20, "2"],
            [22.5, "3"],
            [25, "NaN"],
            [30, "+Inf"],
          ],
        },
      ],
    });
  });

  it("a cut answer: its series, its note and how many series the query matched", () => {
    const cut = { note: "Cut: 2 of 9 series", total: { series: 9, points: 90, bytes: 900 } };
    const input = viewInputOf(matrix([{ metric: {}, values: [] }], { truncated: cut }));
    expect(input).toMatchObject({ kind: "series", note: "Cut: 2 of 9 series", total: 9 });
  });

  it("the JSON text when there is no structured content (the answer as the Python server gave it)", () => {
    const text = JSON.stringify({
      resultType: "matrix",
      result: [{ metric: { a: "1" }, values: [[1, "2"]] }],
    });
    expect(viewInputOf({ content: [{ type: "text", text }] })).toMatchObject({ kind: "series" });
  });

  it("PlotRangeQuery's facts: the range it drew, to ask for the points", () => {
    const facts = { chart: { query: "up", start: 10, end: 20, step: 5, order: "unusual", series: 3 } };
    const result = {
      content: [{ type: "image", data: "", mimeType: "image/png" }],
      structuredContent: facts,
    };
    expect(viewInputOf(result)).toStrictEqual({
      kind: "chart",
      query: "up",
      start: 10,
      end: 20,
      step: 5,
      order: "unusual",
    });
  });

  it("a tool error or anything else: its text, nothing drawn", () => {
    const error = { content: [{ type: "text", text: "Error executing tool: bad query" }], isError: true };
    expect(viewInputOf(error)).toStrictEqual({ kind: "none", text: "Error executing tool: bad query" });
    expect(viewInputOf({ content: [{ type: "text", text: '{"metrics":[]}' }] }).kind).toBe("none");
    expect(viewInputOf(undefined).kind).toBe("none");
    expect(viewInputOf({ content: [{ type: "text", text: "not json" }] })).toStrictEqual({
      kind: "none",
      text: "not json",
    });
  });
});

describe("aligned: the series on one time axis", () => {
  it("the union of the timestamps; a missing sample, NaN and ±Inf are gaps, ±Inf counted", () => {
    const drawn = aligned([
      {
        metric: { __name__: "x", pod: "a" },
        values: [
          [10, "1"],
          [20, "NaN"],
          [30, "+Inf"],
        ],
      },
      {
        metric: { __name__: "x", pod: "b" },
        values: [
          [20, "2"],
          [40, "-Inf"],
          [50, "3.5"],
        ],
      },
    ]);
    expect(drawn.times).toStrictEqual([10, 20, 30, 40, 50]);
    expect(drawn.columns).toStrictEqual([
      [1, null, null, null, null],
      [null, 2, null, null, 3.5],
    ]);
    expect(drawn.infinities).toBe(2);
    expect(drawn.labels).toStrictEqual(['{pod="a"}', '{pod="b"}']);
    expect(drawn.common).toStrictEqual({ __name__: "x" });
  });

  it("names series by what differs, the name included when it differs; one series keeps all its labels", () => {
    expect(labelOf({ __name__: "a", job: "j" }, { job: "j" })).toBe("a");
    expect(labelOf({ job: "j" }, {})).toBe('{job="j"}');
    expect(labelOf({}, {})).toBe("{}");
    expect(aligned([{ metric: { __name__: "up", job: "api" }, values: [] }]).labels).toStrictEqual([
      'up{job="api"}',
    ]);
  });

  it("reads Prometheus's sample texts", () => {
    expect([sampleOf("1e3"), sampleOf("NaN"), sampleOf("+Inf"), sampleOf("-Inf")]).toStrictEqual([
      1000,
      null,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ]);
  });
});

describe("format: times in UTC, values in four significant digits", () => {
  it("writes times in UTC, 24 hours", () => {
    expect(utc(1_700_000_000)).toBe("2023-11-14 22:13:20Z");
    expect(timeTick(1_700_000_040, [1_700_000_000, 1_700_003_600])).toBe("22:14");
    expect(timeTick(1_700_000_000, [1_700_000_000, 1_700_003_600])).toBe("22:13:20");
    expect(timeTick(1_700_000_040, [1_700_000_000, 1_700_300_000])).toBe("11-14 22:14");
  });

  it("shortens large values with a suffix, small ones to four digits", () => {
    expect([
      compact(0),
      compact(0.000123456),
      compact(999.99),
      compact(1234.6),
      compact(-2_500_000),
      compact(3e12),
    ]).toStrictEqual(["0", "0.0001235", "1000", "1.235k", "-2.5M", "3T"]);
  });
});
