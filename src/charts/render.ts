import { rendererAssets } from "./assets.js";
import type { ChartPicture } from "./chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH } from "./size.js";
import { type ValueAxis, valueAxis } from "./valueAxis.js";

export { CHART_HEIGHT, CHART_WIDTH } from "./size.js";

/** The one font the renderer has (shipped with the package: resvg reads no system fonts here). */
const FONT_FAMILY = "DejaVu Sans";
/** DejaVu Sans's average advance per character, in ems, over the text a chart shows (labels, numbers). */
const DEJAVU_ADVANCE = 0.6;

/** The renderer: ECharts drawing SVG on the server, resvg (WebAssembly) turning it into a PNG. */
interface Renderer {
  svg(option: Record<string, unknown>): string;
  png(svg: string): Uint8Array;
}

let loading: Promise<Renderer> | undefined;

/**
 * The chart as a PNG of CHART_WIDTH × CHART_HEIGHT on white, drawn on this thread. PlotRangeQuery
 * draws in a worker (drawing.ts, renderWorker.ts), which calls this. The renderer (ECharts, resvg and
 * its WebAssembly, the font) is loaded by the first chart only, never by a container that draws none.
 */
export async function renderPng(model: ChartPicture): Promise<Uint8Array> {
  const renderer = await loadedRenderer();
  return renderer.png(renderer.svg(optionOf(model)));
}

/** Loads the renderer now (a worker does while the answer is read), once. */
export async function loadChartRenderer(): Promise<void> {
  await loadedRenderer();
}

function loadedRenderer(): Promise<Renderer> {
  loading ??= loadRenderer().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function loadRenderer(): Promise<Renderer> {
  const [core, charts, components, renderers, resvg, assets] = await Promise.all([
    import("echarts/core"),
    import("echarts/charts"),
    import("echarts/components"),
    import("echarts/renderers"),
    import("@resvg/resvg-wasm"),
    rendererAssets(),
  ]);
  core.use([
    charts.LineChart,
    charts.ScatterChart,
    components.GridComponent,
    components.MarkLineComponent,
    components.LegendComponent,
    components.TitleComponent,
    renderers.SVGRenderer,
  ]);
  // ECharts lays text out by measuring it; on the server it guesses, narrower than DejaVu Sans draws
  // (a legend's entries then overlap): measure with the font's average advance instead.
  core.setPlatformAPI({
    measureText: (text: string, font?: string) => ({
      width: text.length * fontSizeOf(font) * DEJAVU_ADVANCE,
    }),
  });
  await resvg.initWasm(assets.wasm);
  return {
    svg(option) {
      const chart = core.init(null, null, {
        renderer: "svg",
        ssr: true,
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
      });
      try {
        chart.setOption(option);
        return chart.renderToSVGString();
      } finally {
        chart.dispose();
      }
    },
    png(svg) {
      const font = { fontBuffers: [assets.font], defaultFontFamily: FONT_FAMILY, loadSystemFonts: false };
      return new resvg.Resvg(svg, { font, background: "white" }).render().asPng();
    },
  };
}

/**
 * The lines' colours: Okabe & Ito's palette for colour-vision deficiencies ("Color Universal Design",
 * https://jfly.uni-koeln.de/color/, 2008), its yellow (#F0E442) left out, too light to see on white.
 * Seven colours; the eighth line on repeats them dashed, so no two lines look alike.
 */
const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
/** Dash patterns (pixels on, off) of the lines whose colour repeats, one per round of the palette. */
const DASHES: ReadonlyArray<number[] | "solid"> = ["solid", [8, 4], [2, 3]];
/** The ±Inf marks (triangles, told apart from lines by their shape). */
const INFINITY_COLOUR = "#B2182B";
/** The band of the series after the lines. */
const BAND_COLOUR = "#9e9e9e";
/** Threshold lines: dark grey, long dashes, their label at the right end. */
const THRESHOLD_COLOUR = "#404040";

/** The ECharts option that draws `model`. */
function optionOf(model: ChartPicture): Record<string, unknown> {
  const extent = finiteExtent(model);
  const axis = valueAxis(extent.low, extent.high, model.unit);
  const legend = [
    ...model.lines.map((line) => line.label),
    // The band's entry: a grey square, as the band is drawn.
    ...(model.others
      ? [
          {
            name: othersName(model.others.count),
            icon: "rect",
            itemStyle: { opacity: 0.3, color: BAND_COLOUR },
          },
        ]
      : []),
  ];
  const lines = model.lines.map((line, index) => ({
    type: "line",
    name: line.label,
    showSymbol: false,
    symbol: "none",
    connectNulls: false,
    color: PALETTE[index % PALETTE.length],
    lineStyle: { width: 2, type: DASHES[Math.floor(index / PALETTE.length) % DASHES.length] },
    data: line.points,
  }));
  const band = model.others === undefined ? [] : bandSeries(model.others);
  const marks =
    model.infinities.length === 0
      ? []
      : [
          {
            type: "scatter",
            name: "±Inf",
            symbol: "triangle",
            symbolSize: 9,
            itemStyle: { color: INFINITY_COLOUR },
            // At the top (+Inf) or bottom (-Inf) of the finite values drawn: marked, never plotted as a value.
            data: model.infinities.map(({ time, sign }) => [time, sign > 0 ? extent.high : extent.low]),
          },
        ];
  return {
    animation: false,
    // Ticks on UTC's hours and days, as the labels write them.
    useUTC: true,
    textStyle: { fontFamily: FONT_FAMILY },
    title: { text: model.title, left: "center", textStyle: { fontSize: 16, fontWeight: "normal" } },
    legend: {
      type: "plain",
      bottom: 0,
      textStyle: { fontSize: LEGEND_FONT_PX },
      // Each entry's icon is its line (dashes shown), without the symbol ECharts puts on it.
      itemWidth: LEGEND_ICON_PX,
      itemStyle: { opacity: 0 },
      data: legend,
    },
    // Room below the plot for the time axis and the legend's rows, right of it for "UTC".
    grid: { left: 80, right: 50, top: 45, bottom: 40 + LEGEND_ROW_PX * legendRows(legend) },
    xAxis: {
      type: "time",
      name: "UTC",
      nameGap: 8,
      nameTextStyle: { fontSize: 12, color: "#333" },
      axisLabel: { formatter: utcLabel, hideOverlap: true },
    },
    yAxis: yAxisOf(axis),
    series: [...band, ...lines, ...marks, ...thresholdSeries(model, axis)],
  };
}

/** The value axis: its bounds and ticks in the unit (valueAxis.ts), else ECharts's own. */
function yAxisOf(axis: ValueAxis | undefined): Record<string, unknown> {
  if (axis === undefined) return { type: "value", scale: true };
  const { min, max, interval, label } = axis;
  return { type: "value", min, max, interval, axisLabel: { formatter: label } };
}

/** The threshold lines, on a series of their own (no legend entry): each labelled with its value. */
function thresholdSeries(model: ChartPicture, axis: ValueAxis | undefined): Array<Record<string, unknown>> {
  if (model.thresholds.length === 0) return [];
  const valueText = (value: number) => axis?.label(value) ?? String(value);
  return [
    {
      type: "line",
      name: "thresholds",
      data: [],
      silent: true,
      markLine: {
        silent: true,
        symbol: "none",
        lineStyle: { color: THRESHOLD_COLOUR, type: [10, 5], width: 1.5 },
        label: { position: "insideEndTop", color: THRESHOLD_COLOUR, fontSize: 12 },
        data: model.thresholds.map(({ value, label }) => ({
          yAxis: value,
          // A function, not a template string: the caller's text is drawn as it is, `{b}` and all.
          label: { formatter: () => (label ? `${label}: ${valueText(value)}` : valueText(value)) },
        })),
      },
    },
  ];
}

/** The lowest and highest finite value drawn (0 and 1 when there is none). */
function finiteExtent(model: ChartPicture): { low: number; high: number } {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  const points = [
    ...model.lines.flatMap((line) => line.points),
    ...(model.others?.low ?? []),
    ...(model.others?.high ?? []),
    // The thresholds are on the chart too, however far from the series.
    ...model.thresholds.map(({ value }): [number, number] => [0, value]),
  ];
  for (const [, value] of points) {
    if (value === null) continue;
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return low <= high ? { low, high } : { low: 0, high: 1 };
}

function othersName(count: number): string {
  return `${count} more series (their range)`;
}

const LEGEND_FONT_PX = 11;
const LEGEND_ROW_PX = 22;
const LEGEND_ICON_PX = 30;
/** A legend entry's room besides its text: the icon, the gap to its text (5), and the gap to the next (10). */
const LEGEND_ENTRY_PX = LEGEND_ICON_PX + 5 + 10;

/** How many rows the legend takes across the chart's width (entries wrap as ECharts wraps them). */
function legendRows(entries: ReadonlyArray<string | { name: string }>): number {
  const names = entries.map((entry) => (typeof entry === "string" ? entry : entry.name));
  const width = CHART_WIDTH - 20;
  let rows = names.length === 0 ? 0 : 1;
  let used = 0;
  for (const name of names) {
    const entry = name.length * LEGEND_FONT_PX * DEJAVU_ADVANCE + LEGEND_ENTRY_PX;
    if (used > 0 && used + entry > width) {
      rows++;
      used = 0;
    }
    used += entry;
  }
  return rows;
}

/** The series after the labelled ones: one grey band from their lowest to their highest value. */
function bandSeries(others: NonNullable<ChartPicture["others"]>): Array<Record<string, unknown>> {
  const base = { type: "line", stack: "others", showSymbol: false, silent: true, z: 0 };
  return [
    {
      ...base,
      name: othersName(others.count),
      lineStyle: { opacity: 0 },
      data: others.low,
    },
    {
      ...base,
      name: "others-high",
      lineStyle: { opacity: 0 },
      areaStyle: { color: BAND_COLOUR, opacity: 0.3 },
      // Stacked on the low line: the band's height at each time.
      data: others.high.map(([time, high], index) => [
        time,
        (high as number) - ((others.low[index]?.[1] as number) ?? 0),
      ]),
    },
  ];
}

/** The pixel size a CSS font shorthand names (`12px sans-serif`), else ECharts' default 12. */
function fontSizeOf(font: string | undefined): number {
  const size = /(\d+(?:\.\d+)?)px/.exec(font ?? "")?.[1];
  return size === undefined ? 12 : Number(size);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Time axis labels in UTC (the axis's name says so): the date at midnight (`Nov 14`), else hours and minutes. */
function utcLabel(milliseconds: number): string {
  const date = new Date(milliseconds);
  if (Number.isNaN(date.getTime())) return "";
  const iso = date.toISOString();
  return iso.slice(11, 16) === "00:00"
    ? `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`
    : iso.slice(11, 16);
}
