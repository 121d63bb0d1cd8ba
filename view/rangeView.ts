/**
 * The range chart view (MCP Apps, `ui://prometheus-mcp-lambda/range-chart`): the page a host shows beside
 * an ExecuteRangeQuery or PlotRangeQuery result. It draws the series the result carries with uPlot:
 * drag to zoom (double-click resets), hover for each series' value, click a legend entry to hide or
 * show it. A PlotRangeQuery result holds a picture, not points: the view asks the host to call
 * ExecuteRangeQuery for the same range, and shows the picture when the host cannot.
 *
 * It makes no network request of its own: everything comes through the host (scripts/view-build.mjs
 * gives the page a Content-Security-Policy that allows nothing else).
 */
import uPlot from "uplot";
import { compact, timeTick, utc } from "./format.js";
import { HostLink } from "./hostLink.js";
import { type AlignedSeries, aligned, labelSet, type ViewInput, viewInputOf } from "./seriesData.js";

const APP_INFO = { name: "prometheus-mcp-lambda range chart", version: "1" };
const APPS_PROTOCOL_VERSION = "2026-01-26";
/** Ten colours told apart with common colour-vision deficiencies (Tableau 10). */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];
const CHART_HEIGHT = 340;
/** The parameters of a PlotRangeQuery call that ExecuteRangeQuery takes as they are. */
const PASSED_ON = ["workspace_id", "region", "limit"];

type Params = Record<string, unknown>;

const element = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
const link = new HostLink(window.parent);
let toolArguments: Params = {};
let canCallTools = false;
let chart: uPlot | undefined;

link.onNotification("ui/notifications/tool-input", (params) => {
  if (typeof params.arguments === "object" && params.arguments !== null) {
    toolArguments = params.arguments as Params;
  }
});
link.onNotification("ui/notifications/tool-result", (params) => void show(params));
link.onNotification("ui/notifications/tool-cancelled", () => status("The query was cancelled."));
link.onNotification("ui/notifications/host-context-changed", (params) => applyContext(params));
link.onRequest("ui/resource-teardown", () => {
  chart?.destroy();
  return {};
});
link.onRequest("ping", () => ({}));

void start();

async function start(): Promise<void> {
  try {
    const initialized = await link.request("ui/initialize", {
      appInfo: APP_INFO,
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: APPS_PROTOCOL_VERSION,
    });
    const capabilities = (initialized.hostCapabilities ?? {}) as Params;
    canCallTools = typeof capabilities.serverTools === "object" && capabilities.serverTools !== null;
    applyContext((initialized.hostContext ?? {}) as Params);
    link.notify("ui/notifications/initialized", {});
  } catch (error) {
    status(`The host did not start the view: ${String(error)}`);
  }
  new ResizeObserver(() => {
    const { scrollWidth: width, scrollHeight: height } = document.documentElement;
    link.notify("ui/notifications/size-changed", { width, height });
  }).observe(document.body);
  window.addEventListener("resize", () => chart?.setSize({ width: chartWidth(), height: CHART_HEIGHT }));
}

/** The host's theme and style variables (MCP Apps host context); the page's own defaults stand otherwise. */
function applyContext(context: Params): void {
  const root = document.documentElement;
  if (context.theme === "dark" || context.theme === "light") {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  const styles = context.styles as { variables?: Record<string, string | undefined> } | undefined;
  for (const [name, value] of Object.entries(styles?.variables ?? {})) {
    if (name.startsWith("--") && typeof value === "string") root.style.setProperty(name, value);
  }
  if (chart !== undefined) redraw();
}

async function show(toolResult: Params): Promise<void> {
  let input = viewInputOf(toolResult);
  if (typeof toolArguments.query === "string") element("title").textContent = toolArguments.query;
  if (input.kind === "chart") {
    element("title").textContent = input.query;
    if (!canCallTools) {
      pictureOf(
        toolResult,
        "This host cannot ask the server for the points: the chart as drawn by the server.",
      );
      return;
    }
    status("Reading the points…");
    try {
      input = viewInputOf(
        await link.request("tools/call", { name: "ExecuteRangeQuery", arguments: rangeArguments(input) }),
      );
    } catch (error) {
      pictureOf(
        toolResult,
        `The points could not be read (${String(error)}): the chart as drawn by the server.`,
      );
      return;
    }
  }
  draw(input);
}

/** ExecuteRangeQuery's arguments for the range a PlotRangeQuery drew (absolute, as it resolved them). */
function rangeArguments(input: Extract<ViewInput, { kind: "chart" }>): Params {
  const passed = Object.entries(toolArguments).filter(
    ([name, value]) => PASSED_ON.includes(name) && value != null,
  );
  return {
    ...Object.fromEntries(passed),
    query: input.query,
    start: String(input.start),
    end: String(input.end),
    step: String(input.step),
    ...(input.order !== undefined ? { order: input.order } : {}),
  };
}

let shown: AlignedSeries | undefined;

function draw(input: ViewInput): void {
  if (input.kind !== "series") {
    status(input.kind === "none" ? input.text : "Nothing to draw.");
    return;
  }
  if (input.series.length === 0) {
    status("The query matched no series: nothing to draw.");
    return;
  }
  shown = aligned(input.series);
  const drawn = input.series.length;
  const total = input.total ?? drawn;
  const common = labelSet(shown.common);
  element("facts").textContent = [
    common !== "{}" ? common : "",
    total > drawn
      ? `${drawn} of ${total} series drawn (the answer holds the rest as statistics)`
      : `${drawn} series`,
    shown.infinities > 0 ? `${shown.infinities} ±Inf samples not drawn` : "",
    "UTC",
  ]
    .filter((part) => part !== "")
    .join(" · ");
  element("note").textContent = input.note ?? "";
  status("");
  redraw();
}

function redraw(): void {
  if (shown === undefined) return;
  chart?.destroy();
  const text = colorOf("--color-text-secondary");
  const grid = colorOf("--color-border-secondary");
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const options: uPlot.Options = {
    width: chartWidth(),
    height: CHART_HEIGHT,
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
    scales: { x: { time: true } },
    cursor: { drag: { x: true, y: false } },
    legend: { live: true },
    axes: [
      { ...axis, values: (_, ticks) => ticks.map((tick) => timeTick(tick, shown?.times ?? [])) },
      { ...axis, size: 60, values: (_, ticks) => ticks.map(compact) },
    ],
    series: [
      { label: "time", value: (_: uPlot, seconds: number | null) => (seconds === null ? "–" : utc(seconds)) },
      ...shown.labels.map((label, at) => ({
        label,
        stroke: PALETTE[at % PALETTE.length],
        width: 1.5,
        spanGaps: false,
        points: { show: false },
        value: (_: uPlot, value: number | null) => (value === null ? "–" : compact(value)),
      })),
    ],
  };
  chart = new uPlot(options, [shown.times, ...shown.columns] as uPlot.AlignedData, element("chart"));
}

/**
 * A style variable as a colour the canvas can draw with: the variable may hold what only CSS resolves
 * (`light-dark(…)`, another variable), so an element resolves it.
 */
function colorOf(variable: string): string {
  const probe = document.createElement("span");
  probe.style.color = `var(${variable})`;
  document.body.append(probe);
  const resolved = getComputedStyle(probe).color;
  probe.remove();
  return resolved;
}

function chartWidth(): number {
  return Math.max(320, element("chart").clientWidth);
}

/** The server's picture from the result (PlotRangeQuery's PNG), with why it stands in for the chart. */
function pictureOf(toolResult: Params, why: string): void {
  const content = Array.isArray(toolResult.content) ? (toolResult.content as Params[]) : [];
  const image = content.find((item) => item.type === "image" && typeof item.data === "string");
  status(why);
  if (image === undefined) return;
  const picture = document.createElement("img");
  picture.alt = "The chart as the server drew it";
  picture.src = `data:${String(image.mimeType ?? "image/png")};base64,${String(image.data)}`;
  element("chart").replaceChildren(picture);
}

function status(message: string): void {
  element("status").textContent = message;
}
