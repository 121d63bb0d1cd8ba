import { rendererAssets } from "./assets.js";
import type { ChartPicture, Unit } from "./chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH } from "./size.js";

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

/** The ECharts option that draws `model`. */
function optionOf(model: ChartPicture): Record<string, unknown> {
  const extent = finiteExtent(model);
  const legend = [
    ...model.lines.map((line) => line.label),
    ...(model.others ? [othersName(model.others.count)] : []),
  ];
  const lines = model.lines.map((line) => ({
    type: "line",
    name: line.label,
    showSymbol: false,
    connectNulls: false,
    lineStyle: { width: 1.5 },
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
            itemStyle: { color: "#d62728" },
            // At the top (+Inf) or bottom (-Inf) of the finite values drawn: marked, never plotted as a value.
            data: model.infinities.map(({ time, sign }) => [time, sign > 0 ? extent.high : extent.low]),
          },
        ];
  return {
    animation: false,
    textStyle: { fontFamily: FONT_FAMILY },
    title: { text: model.title, left: "center", textStyle: { fontSize: 16, fontWeight: "normal" } },
    legend: { type: "plain", bottom: 0, textStyle: { fontSize: LEGEND_FONT_PX }, data: legend },
    // Room below the plot for the time axis and the legend's rows.
    grid: { left: 70, right: 30, top: 45, bottom: 40 + LEGEND_ROW_PX * legendRows(legend) },
    xAxis: { type: "time", axisLabel: { formatter: utcLabel, hideOverlap: true } },
    yAxis: {
      type: "value",
      scale: true,
      name: unitName(model.unit),
      axisLabel: { formatter: valueLabel(model.unit) },
    },
    series: [...band, ...lines, ...marks],
  };
}

/** The lowest and highest finite value drawn (0 and 1 when there is none). */
function finiteExtent(model: ChartPicture): { low: number; high: number } {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  const points = [
    ...model.lines.flatMap((line) => line.points),
    ...(model.others?.low ?? []),
    ...(model.others?.high ?? []),
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
/** A legend entry's room besides its text: the icon, and the gap to the next. */
const LEGEND_ENTRY_PX = 25 + 10;

/** How many rows the legend takes across the chart's width (entries wrap as ECharts wraps them). */
function legendRows(names: readonly string[]): number {
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
      areaStyle: { color: "#9e9e9e", opacity: 0.3 },
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

/** Time axis labels in UTC: the date at midnight, else hours and minutes (none where no date is). */
function utcLabel(milliseconds: number): string {
  const date = new Date(milliseconds);
  if (Number.isNaN(date.getTime())) return "";
  const iso = date.toISOString();
  return iso.slice(11, 16) === "00:00" ? iso.slice(5, 10) : iso.slice(11, 16);
}

/** The y axis's name: the unit where its labels do not already say it (seconds and bytes do). */
function unitName(unit: Unit | undefined): string {
  return unit === "percent" ? "%" : "";
}

/** Value labels in the unit: bytes in KiB/MiB/GiB, seconds in ms/s, a ratio as a percentage. */
function valueLabel(unit: Unit | undefined): (value: number) => string {
  const short = (value: number) => Number(value.toPrecision(3)).toString();
  if (unit === "bytes") {
    return (value) => {
      const steps = ["B", "KiB", "MiB", "GiB", "TiB"];
      let at = 0;
      let scaled = value;
      while (Math.abs(scaled) >= 1024 && at < steps.length - 1) {
        scaled /= 1024;
        at++;
      }
      return `${short(scaled)} ${steps[at]}`;
    };
  }
  if (unit === "seconds")
    return (value) =>
      Math.abs(value) < 1 && value !== 0 ? `${short(value * 1000)} ms` : `${short(value)} s`;
  if (unit === "ratio") return (value) => `${short(value * 100)} %`;
  if (unit === "percent") return (value) => `${short(value)} %`;
  return short;
}
