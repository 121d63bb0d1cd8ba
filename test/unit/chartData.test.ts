import { decode } from "fast-png";
import pixelmatch from "pixelmatch";
import { describe, expect, it } from "vitest";
import { chartFacts } from "../../src/charts/chartAnswer.js";
import { ChartData, MAX_CELLS, MAX_COLUMNS } from "../../src/charts/chartData.js";
import {
  type ChartPicture,
  chartModel,
  cutMiddle,
  MAX_LEGEND_CHARS,
  MAX_TITLE_CHARS,
  type MatrixSeries,
} from "../../src/charts/chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH, renderPng } from "../../src/charts/render.js";
import { Measure } from "../../src/results/fit.js";
import { leanTable } from "../../src/results/leanTable.js";
import { SeriesStats } from "../../src/results/stats.js";
import { estimateTokens } from "../../src/results/tokens.js";
import { type SeriesTableValue, tableSeries } from "../support/cutResults.js";
import { DEFAULT_BUDGET } from "../support/toolCall.js";

// What PlotRangeQuery keeps of an answer (src/charts/chartData.ts): per series its statistics, exactly,
// and per pixel column its lowest and highest sample, whatever the number of points sent.

const START = 1_700_000_000;
const STEP = 15;

/** A deterministic random walk per series, `points` samples STEP apart; `text` may replace a sample. */
function walks(
  count: number,
  points: number,
  text: (series: number, at: number, value: number) => string = (_s, _a, value) => String(value),
): MatrixSeries[] {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  return Array.from({ length: count }, (_, series) => {
    let value = series;
    return {
      metric: { __name__: "queue_depth", pod: `worker-${series}` },
      values: Array.from({ length: points }, (_, at) => {
        value += random() - 0.5;
        return [START + at * STEP, text(series, at, value)] as const;
      }),
    };
  });
}

/** The picture of `series` with every one of their points, none reduced: what the chart stands for. */
function everyPoint(series: MatrixSeries[], title: string): ChartPicture {
  const model = chartModel(series, { title, order: "unusual" });
  const byLabel = new Map(model.lines.map((line, index) => [line.label, model.drawn[index]?.metric]));
  return {
    ...model,
    lines: model.lines.map((line) => {
      const metric = byLabel.get(line.label);
      const one = series.find((candidate) => candidate.metric === metric) as MatrixSeries;
      return {
        label: line.label,
        points: one.values.map(([time, text]) => {
          const value = Number(text);
          return [time * 1000, Number.isFinite(value) ? value : null];
        }),
      };
    }),
  };
}

describe("a chart's answer, reduced while read", () => {
  it("draws a dense answer (five points a pixel, gaps, spikes) as its every point does", async () => {
    const series = walks(3, 5_000, (index, at, value) =>
      at % 1_000 > 900 ? "NaN" : at % 173 === index ? String(value + 12) : String(value),
    );
    const model = chartModel(series, { title: "dense", order: "unusual" });
    // At most two points a column (and a break before or after), never one a sample.
    for (const line of model.lines) expect(line.points.length).toBeLessThanOrEqual(4 * MAX_COLUMNS);
    const [reduced, whole] = [
      decode(await renderPng(model)),
      decode(await renderPng(everyPoint(series, "dense"))),
    ];
    const differing = pixelmatch(
      reduced.data as Uint8Array,
      whole.data as Uint8Array,
      undefined,
      CHART_WIDTH,
      CHART_HEIGHT,
      { threshold: 0.1 },
    );
    // Antialiasing at a column's edge only: a hundredth of the picture at most.
    expect(differing).toBeLessThanOrEqual(CHART_WIDTH * CHART_HEIGHT * 0.01);
  });

  it("keeps every series' statistics exact: series_stats as from every sample", () => {
    const series = walks(12, 11_000, (index, at, value) =>
      at === 5_000 + index ? "+Inf" : at % 999 === 0 ? "NaN" : String(value),
    );
    const model = chartModel(series, { title: "stats", order: "highest" });
    const asked = { query: "q", start: START, end: START + 10_999 * STEP, step: STEP, order: "highest" };
    const facts = chartFacts(model, series.length, asked, 1, DEFAULT_BUDGET) as {
      chart: { infinities_marked: number };
      series_stats: { rows: unknown[][] };
    };
    // The lines' rows, then the band's, each from every sample of its series.
    const items = [...model.drawn, ...model.banded].map(({ metric }) => {
      const one = series.find((candidate) => candidate.metric === metric) as MatrixSeries;
      const stats = new SeriesStats();
      for (const [time, text] of one.values) stats.add(time, text === "+Inf" ? Infinity : Number(text));
      return { kind: "series" as const, metric, stats };
    });
    expect(items).toHaveLength(12);
    const { rows } = leanTable(items, new Measure({}));
    expect(facts.series_stats.rows).toStrictEqual(rows.first(rows.count));
    // Every infinite sample of the lines is counted, though marks of one column are one mark.
    expect(facts.chart.infinities_marked).toBe(10);
  });

  it("keeps its text within the budget: every line's row, the band's as far as they fit, rows_missing the rest", () => {
    // 2,000 series, long labels: the band's rows alone would cost far more than the budget.
    const series = walks(2_000, 20).map((one, index) => ({
      ...one,
      metric: { ...one.metric, image: `registry.example.com/team/worker:${"v".repeat(60)}${index}` },
    }));
    const model = chartModel(series, { title: "many", order: "highest" });
    const asked = { query: "q", start: START, end: START + 19 * STEP, step: STEP, order: "highest" };
    const budget = { tokens: 5_000, bytes: 1_000_000 };
    const facts = chartFacts(model, series.length, asked, 1, budget) as {
      chart: { rows_missing?: number };
      series_stats: SeriesTableValue;
    };
    expect(estimateTokens(JSON.stringify(facts))).toBeLessThanOrEqual(budget.tokens);
    const inTable = tableSeries(facts.series_stats);
    // The lines first, each with its row; the series left out are counted.
    expect(inTable.slice(0, model.drawn.length).map(({ labels }) => labels.pod)).toStrictEqual(
      model.drawn.map(({ metric }) => (metric as Record<string, string>).pod),
    );
    expect(inTable.length).toBeGreaterThan(model.drawn.length);
    expect(facts.chart.rows_missing).toBe(series.length - inTable.length);
    // Room enough: every series has its row, and nothing is said missing.
    const roomy = chartFacts(model, series.length, asked, 1, { tokens: 10_000_000, bytes: 100_000_000 }) as {
      chart: { rows_missing?: number };
      series_stats: SeriesTableValue;
    };
    expect(tableSeries(roomy.series_stats)).toHaveLength(series.length);
    expect(roomy.chart).not.toHaveProperty("rows_missing");
  });

  it("holds a bounded number of columns whatever the series: beyond MAX_CELLS, every series' columns merge", () => {
    const count = Math.ceil(MAX_CELLS / MAX_COLUMNS) + 1;
    const data = new ChartData({ start: START, end: START + (MAX_COLUMNS - 1) * STEP, step: STEP });
    // Series 0 dips to -100 at sample 10, breaks (NaN) from 500 to 520, peaks at 100 at the last.
    data.add(
      { pod: "a" },
      Array.from({ length: MAX_COLUMNS }, (_, at) => [
        START + at * STEP,
        at === 10 ? "-100" : at >= 500 && at <= 520 ? "NaN" : at === MAX_COLUMNS - 1 ? "100" : "1",
      ]),
    );
    const first = data.series[0];
    if (first === undefined) throw new Error("no series");
    expect(data.line(first)).toHaveLength(MAX_COLUMNS);
    for (let index = 1; index < count; index++) {
      data.add({ pod: `p${index}` }, [[START, String(index)]]);
    }
    const line = data.line(first);
    // Merged in pairs: half the columns, two points each where they differ, and the break kept.
    expect(line.length).toBeLessThan(MAX_COLUMNS);
    const values = line.map(([, value]) => value);
    expect(Math.min(...values.filter((value) => value !== null))).toBe(-100);
    expect(Math.max(...values.filter((value) => value !== null))).toBe(100);
    expect(values.filter((value) => value === null).length).toBeGreaterThanOrEqual(1);
    // The line is broken where the NaN were: no point between 500 and 520 steps in.
    const inGap = line.filter(
      ([time, value]) =>
        value !== null && time > (START + 501 * STEP) * 1000 && time < (START + 519 * STEP) * 1000,
    );
    expect(inGap).toHaveLength(0);
    // The statistics stay exact.
    expect(first.stats.min).toBe(-100);
    expect(first.stats.max).toBe(100);
  });

  it("leaves out of the drawing the samples whose time no date holds (an odd upstream's), and counts them", async () => {
    const model = chartModel(
      [
        {
          metric: { __name__: "up", job: "a" },
          values: [
            [START, "1"],
            [1e13, "2"],
            [-1e13, "3"],
            [START + 60, "+Inf"],
          ],
        },
        { metric: { __name__: "up", job: "b" }, values: [[START + 120, "4"]] },
      ],
      { title: "odd", order: "unusual" },
    );
    expect(model.undrawable).toBe(2);
    const drawnTimes = model.lines.flatMap((line) => line.points.map(([time]) => time));
    expect(drawnTimes.every((time) => Math.abs(time) <= 8.64e15)).toBe(true);
    // Its statistics still count them, as ExecuteRangeQuery's would.
    expect(model.drawn.find(({ metric }) => metric.job === "a")?.stats.samples).toBe(4);
    const png = await renderPng(model);
    expect(decode(png).width).toBe(CHART_WIDTH);
  });
});

describe("what a chart draws of text from the monitored system is bounded", () => {
  it("cuts legend entries (start and end kept) and the title, keeps them apart, and puts them on one line", () => {
    const long = (end: string) => ({ __name__: "up", joined: `${"a,b,c,".repeat(20_000)}${end}` });
    const model = chartModel(
      ["x", "y", "z"].map((end) => ({ metric: long(end), values: [[START, "1"]] })),
      { title: `sum by (pod) (\n  rate(${"x".repeat(5_000)}[5m])\n)`, order: "unusual" },
    );
    const labels = model.lines.map((line) => line.label);
    for (const label of labels) {
      expect(label.length).toBeLessThanOrEqual(MAX_LEGEND_CHARS);
      expect(label).toContain("…");
    }
    expect(labels.map((label) => label.slice(-3))).toStrictEqual(['x"}', 'y"}', 'z"}']);
    expect(model.title.length).toBeLessThanOrEqual(MAX_TITLE_CHARS + 1);
    expect(model.title).toMatch(/^sum by \(pod\) \( rate\(x+…$/);
    // The labels stay whole in series_stats.
    const facts = chartFacts(
      model,
      3,
      { query: "q", start: START, end: START, step: 1, order: "unusual" },
      1,
      DEFAULT_BUDGET,
    ) as {
      series_stats: { columns: string[]; rows: Array<Array<string | string[]>> };
    };
    // Alike but for that label, the three share one row, which lists their values.
    const joined = facts.series_stats.columns.indexOf("joined");
    expect(
      facts.series_stats.rows.flatMap((row) => [row[joined] ?? []].flat().map((value) => value.length)),
    ).toStrictEqual([120_001, 120_001, 120_001]);
  });

  it("numbers entries a cut makes alike", () => {
    const same = `${"q".repeat(200)}`;
    const model = chartModel(
      ["1", "2"].map((tail) => ({
        metric: { a: `${same}${tail}${same}`, b: tail },
        values: [[START, "1"]] as const,
      })),
      { title: "t", order: "unusual" },
    );
    const labels = model.lines.map((line) => line.label);
    expect(new Set(labels).size).toBe(2);
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(MAX_LEGEND_CHARS);
  });

  it("never splits a surrogate pair, and draws control characters as spaces", () => {
    expect(cutMiddle(`${"😀".repeat(50)}`, 20)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(cutMiddle(`${"😀".repeat(50)}`, 20)).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
    const model = chartModel(
      [
        { metric: { __name__: "up\u0000\u0007x" }, values: [[START, "2"]] },
        { metric: { __name__: "down" }, values: [[START, "1"]] },
      ],
      { title: "a\u0001b", order: "highest" },
    );
    expect(model.title).toBe("a b");
    expect(model.lines[0]?.label).toBe("up x");
    // A single series is labelled by the title, drawn as the title is.
    const one = chartModel([{ metric: {}, values: [[START, "1"]] }], { title: "a\u0001b", order: "unusual" });
    expect(one.lines[0]?.label).toBe("a b");
  });
});
