/**
 * What the view draws, read from a tool result: the series of a range answer (ExecuteRangeQuery's
 * `result`, whole or cut), on one time axis. Pure: no DOM, so the unit tests run it as the page does.
 */

/** One series of a Prometheus range answer: its labels and `[unix seconds, "value"]` points. */
export interface RangeSeries {
  metric: Record<string, string>;
  values: ReadonlyArray<readonly [number, string]>;
}

/** The series on one time axis, as the chart library takes them. */
export interface AlignedSeries {
  /** Every timestamp of any series, ascending (unix seconds). */
  times: number[];
  /** One column per series, `null` where the series has no sample, NaN, or ±Inf (a gap). */
  columns: Array<Array<number | null>>;
  /** Each series named by the labels that tell it apart from the others. */
  labels: string[];
  /** Labels every series shares, said once above the chart. */
  common: Record<string, string>;
  /** ±Inf samples, which no axis can show: counted and said, not drawn. */
  infinities: number;
}

/** What a tool result gives the view: series to draw, or the range to ask for them, or nothing drawable. */
export type ViewInput =
  | { kind: "series"; series: RangeSeries[]; note?: string; total?: number }
  | { kind: "chart"; query: string; start: number; end: number; step: number; order?: string }
  | { kind: "none"; text: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads a `tools/call` result (as `ui/notifications/tool-result` carries it): its structured content,
 * else the JSON of its first text item. A range answer gives its series; PlotRangeQuery's facts give
 * the range it drew (the view asks ExecuteRangeQuery for the points); anything else, its text.
 */
export function viewInputOf(toolResult: unknown): ViewInput {
  const result = isObject(toolResult) ? toolResult : {};
  const texts = Array.isArray(result.content)
    ? result.content.filter(
        (item): item is Json & { text: string } => isObject(item) && typeof item.text === "string",
      )
    : [];
  const body = isObject(result.structuredContent) ? result.structuredContent : parsed(texts[0]?.text);
  if (result.isError === true || body === undefined) {
    return {
      kind: "none",
      text: texts.map((item) => item.text).join("\n") || "The tool gave no result to draw.",
    };
  }
  if (isObject(body.chart) && typeof body.chart.query === "string") {
    const { query, start, end, step, order } = body.chart;
    if (typeof start === "number" && typeof end === "number" && typeof step === "number") {
      return { kind: "chart", query, start, end, step, ...(typeof order === "string" ? { order } : {}) };
    }
  }
  if (body.resultType === "matrix" && Array.isArray(body.result)) {
    const grid = gridOf(body.range);
    const series = body.result.filter(isRangeSeries).map((one) => (grid ? onGrid(one, grid) : one));
    // A cut answer says so first: its note, and how many series the query matched in all.
    const cut = isObject(body.truncated) ? body.truncated : undefined;
    const total = isObject(cut?.total) && typeof cut.total.series === "number" ? cut.total.series : undefined;
    return {
      kind: "series",
      series,
      ...(typeof cut?.note === "string" ? { note: cut.note } : {}),
      ...(total !== undefined ? { total } : {}),
    };
  }
  return {
    kind: "none",
    text: texts.map((item) => item.text).join("\n") || "Nothing in this result to draw.",
  };
}

function parsed(text: string | undefined): Json | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A compact answer's `range` (RFC 3339 start, step in seconds): its `values[k]` is at start + k × step. */
function gridOf(range: unknown): { start: number; step: number } | undefined {
  if (!isObject(range) || typeof range.start !== "string" || typeof range.step_seconds !== "number")
    return undefined;
  const start = Date.parse(range.start) / 1000;
  return Number.isFinite(start) && range.step_seconds > 0 ? { start, step: range.step_seconds } : undefined;
}

/**
 * A compact curve as `[time, "value"]` points: an entry at start + k × step; a bucket's two extremes
 * `[first, second]` at its start and half a step later, so both are drawn; `null` no point.
 */
function onGrid(series: RangeSeries, grid: { start: number; step: number }): RangeSeries {
  const points: Array<readonly [number, string]> = [];
  (series.values as readonly unknown[]).forEach((entry, k) => {
    const time = grid.start + k * grid.step;
    const extremes = Array.isArray(entry) ? entry : entry === null ? [] : [entry];
    extremes.forEach((one, i) => {
      points.push([time + (i * grid.step) / 2, String(one)]);
    });
  });
  return { metric: series.metric, values: points };
}

function isRangeSeries(value: unknown): value is RangeSeries {
  return isObject(value) && isObject(value.metric) && Array.isArray(value.values);
}

/** A sample's value: a number, `null` for NaN (a gap), or `Infinity`/`-Infinity`. */
export function sampleOf(text: string): number | null {
  const value = Number(text === "+Inf" ? "Infinity" : text === "-Inf" ? "-Infinity" : text);
  return Number.isNaN(value) ? null : value;
}

/** The series on the union of their timestamps, each named by the labels that differ. */
export function aligned(series: readonly RangeSeries[]): AlignedSeries {
  const times = [...new Set(series.flatMap((one) => one.values.map(([time]) => time)))].sort((a, b) => a - b);
  const index = new Map(times.map((time, at) => [time, at]));
  let infinities = 0;
  const columns = series.map((one) => {
    const column: Array<number | null> = new Array(times.length).fill(null);
    for (const [time, text] of one.values) {
      const value = sampleOf(text);
      if (value !== null && !Number.isFinite(value)) infinities++;
      column[index.get(time) as number] = value !== null && Number.isFinite(value) ? value : null;
    }
    return column;
  });
  const common = commonLabels(series.map((one) => one.metric));
  const labels = series.map((one) => labelOf(one.metric, common));
  return { times, columns, labels, common, infinities };
}

/** The labels (name included) every series has with the same value; none when there is one series. */
export function commonLabels(metrics: ReadonlyArray<Record<string, string>>): Record<string, string> {
  const [first, ...rest] = metrics;
  if (first === undefined || rest.length === 0) return {};
  return Object.fromEntries(
    Object.entries(first).filter(([name, value]) => rest.every((metric) => metric[name] === value)),
  );
}

/** `name{label="value", …}` of the labels not in `common`; the whole set when nothing differs. */
export function labelOf(metric: Record<string, string>, common: Record<string, string>): string {
  const { __name__: name, ...labels } = metric;
  const shownName = name !== undefined && common.__name__ !== name ? name : "";
  const pairs = Object.entries(labels)
    .filter(([label, value]) => common[label] !== value)
    .map(([label, value]) => `${label}="${value}"`);
  const text = pairs.length > 0 ? `${shownName}{${pairs.join(", ")}}` : shownName;
  return text || labelSet(metric) || "{}";
}

/** A whole label set in PromQL's notation. */
export function labelSet(metric: Record<string, string>): string {
  const { __name__: name, ...labels } = metric;
  const pairs = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  return `${name ?? ""}${pairs.length > 0 || name === undefined ? `{${pairs.join(", ")}}` : ""}`;
}
