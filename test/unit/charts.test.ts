import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { chartFacts } from "../../src/charts/chartAnswer.js";
import { chartModel, MAX_LABELLED_LINES, type MatrixSeries } from "../../src/charts/chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH, renderPng } from "../../src/charts/render.js";
import { DEFAULT_BUDGET } from "../support/toolCall.js";

const START = 1_700_000_000;

/** `count` series of `points` samples a minute apart; series i peaks at i (so the last is the highest). */
function matrix(
  count: number,
  points: number,
  value = (series: number, at: number) => String(series + Math.sin(at / 9)),
): MatrixSeries[] {
  return Array.from({ length: count }, (_, series) => ({
    metric: { __name__: "container_cpu_usage_seconds_total", job: "kubelet", pod: `api-${series}` },
    values: Array.from({ length: points }, (_, at) => [START + at * 60, value(series, at)] as const),
  }));
}

/** The decoded PNG: its size, its distinct colours, and how many pixels are not white. */
function inspect(png: Uint8Array) {
  const image = decode(png);
  const colours = new Set<number>();
  let drawn = 0;
  const channels = image.channels;
  for (let at = 0; at < image.data.length; at += channels) {
    const [r, g, b] = [image.data[at] as number, image.data[at + 1] as number, image.data[at + 2] as number];
    colours.add((r << 16) | (g << 8) | b);
    if (r < 250 || g < 250 || b < 250) drawn++;
  }
  return { width: image.width, height: image.height, colours: colours.size, drawn };
}

describe("chartModel", () => {
  it("draws the first ten in the order asked as labelled lines, the rest as one band with their count", () => {
    const model = chartModel(matrix(25, 30), { title: "CPU", order: "highest" });
    expect(model.lines).toHaveLength(MAX_LABELLED_LINES);
    // Highest peak first: api-24, api-23, …; labelled by the one label that differs.
    expect(model.lines.map((line) => line.label).slice(0, 3)).toStrictEqual([
      '{pod="api-24"}',
      '{pod="api-23"}',
      '{pod="api-22"}',
    ]);
    expect(model.others?.count).toBe(15);
    expect(model.others?.low[0]).toStrictEqual([START * 1000, 0]);
    expect(model.others?.high[0]).toStrictEqual([START * 1000, 14]);
    expect(model.unit).toBe("seconds");
  });

  it("leaves a gap for NaN and marks ±Inf rather than plotting it", () => {
    const values = ["1", "NaN", "2", "+Inf", "-Inf", "3"];
    const model = chartModel(
      [{ metric: { __name__: "up" }, values: values.map((v, at) => [START + at * 60, v] as const) }],
      {
        title: "up",
        order: "unusual",
      },
    );
    expect(model.lines[0]?.points.map(([, value]) => value)).toStrictEqual([1, null, 2, null, null, 3]);
    expect(model.lines[0]?.label).toBe("up");
    expect(model.infinities).toStrictEqual([
      { label: "up", time: (START + 180) * 1000, sign: 1 },
      { label: "up", time: (START + 240) * 1000, sign: -1 },
    ]);
    expect(model.others).toBeUndefined();
  });

  it("reads the unit from the query, else from the first series' metric name", () => {
    const memory = [
      { metric: { __name__: "node_memory_MemAvailable_bytes" }, values: [[START, "1"] as const] },
    ];
    expect(chartModel(memory, { title: "t", order: "unusual" }).unit).toBe("bytes");
    const perSecond = [{ metric: { pod: "a" }, values: [[START, "1"] as const] }];
    const query = "sum by (pod) (rate(container_network_receive_bytes_total[5m]))";
    expect(chartModel(perSecond, { title: "t", query, order: "unusual" }).unit).toBe("bytes/s");
  });

  it("a single series is labelled by the title (the query unless the call gave one), never {}", () => {
    const one = [{ metric: {}, values: [[START, "1"] as const] }];
    const query = "sum(rate(http_requests_total[5m]))";
    expect(chartModel(one, { title: query, query, order: "unusual" }).lines[0]?.label).toBe(query);
    expect(chartModel(one, { title: "Requests", query, order: "unusual" }).lines[0]?.label).toBe("Requests");
  });

  it("legend entries are the labels that differ only: the metric's name first, never {}", () => {
    const at = [[START, "1"] as const];
    const model = chartModel(
      [
        { metric: { __name__: "a_total", job: "api", pod: "x" }, values: at },
        { metric: { __name__: "b_total", job: "api", pod: "y" }, values: at },
        { metric: { __name__: "b_total", job: "api" }, values: at },
        { metric: { job: "api" }, values: at },
      ],
      { title: "t", order: "highest" },
    );
    expect(model.lines.map((line) => line.label).sort()).toStrictEqual([
      'a_total{pod="x"}',
      "b_total",
      'b_total{pod="y"}',
      // Nothing that tells it apart: the labels it lacks, empty.
      '{pod=""}',
    ]);
  });

  it("thresholds: at most five, labels drawn on one line and cut, said in the text", () => {
    const thresholds = [
      { value: 0.9, label: "alert\n<b>high</b>" },
      { value: 0.5 },
      { value: 1, label: "x".repeat(100) },
      ...[2, 3, 4].map((value) => ({ value })),
    ];
    const model = chartModel(matrix(2, 5), { title: "t", order: "unusual", thresholds });
    expect(model.thresholds).toHaveLength(5);
    expect(model.thresholds[0]).toStrictEqual({ value: 0.9, label: "alert <b>high</b>" });
    expect(model.thresholds[1]).toStrictEqual({ value: 0.5 });
    expect(model.thresholds[2]?.label).toHaveLength(40);
    const asked = { query: "q", start: START, end: START + 240, step: 60, order: "unusual" };
    const facts = chartFacts(model, 2, asked, 1, DEFAULT_BUDGET) as { chart: { thresholds?: unknown } };
    expect(facts.chart.thresholds).toStrictEqual(model.thresholds);
    const none = chartFacts(
      chartModel(matrix(2, 5), { title: "t", order: "unusual" }),
      2,
      asked,
      1,
      DEFAULT_BUDGET,
    );
    expect(none.chart).not.toHaveProperty("thresholds");
  });
});

describe("renderPng", () => {
  it.each([
    ["one series", 1],
    ["ten series", 10],
    ["200 series (ten lines and a band)", 200],
  ])("%s: a PNG of the documented size, drawn, within 150 KB", async (_name, count) => {
    const started = performance.now();
    const png = await renderPng(chartModel(matrix(count, 300), { title: "CPU per pod", order: "unusual" }));
    const ms = performance.now() - started;
    const image = inspect(png);
    console.log(
      `${count} series × 300 points: ${png.length} bytes, ${ms.toFixed(0)} ms (first one loads the renderer)`,
    );
    expect(image.width).toBe(CHART_WIDTH);
    expect(image.height).toBe(CHART_HEIGHT);
    expect(png.length).toBeLessThanOrEqual(150_000);
    // Not blank: axes, text and lines in several colours.
    expect(image.colours).toBeGreaterThan(20);
    expect(image.drawn).toBeGreaterThan(5_000);
  });

  it("a threshold far above the series is drawn: the axis reaches it", async () => {
    const series = matrix(1, 50, () => "1");
    const plain = inspect(await renderPng(chartModel(series, { title: "t", order: "unusual" })));
    const model = chartModel(series, {
      title: "t",
      order: "unusual",
      thresholds: [{ value: 100, label: "max" }],
    });
    const withLine = inspect(await renderPng(model));
    expect(withLine.drawn).toBeGreaterThan(plain.drawn);
  });

  it("a flat series and ±Inf draw too", async () => {
    const flat = matrix(3, 50, (series, at) => (series === 0 && at === 10 ? "+Inf" : "5"));
    const image = inspect(await renderPng(chartModel(flat, { title: "flat", order: "unusual" })));
    expect(image.drawn).toBeGreaterThan(2_000);
  });
});
