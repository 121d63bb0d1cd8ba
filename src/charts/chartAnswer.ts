import { ToolError } from "../errors.js";
import type { AnswerSink } from "../prometheus/answerReader.js";
import type { QueryRange } from "../results/curves.js";
import { type Budget, less, Measure } from "../results/fit.js";
import type { Labels } from "../results/labelSets.js";
import { leanTable } from "../results/leanTable.js";
import type { QueryResult, QueryResultCollector } from "../results/queryResult.js";
import { asSeries } from "../results/series.js";
import { parseJsonBytes } from "../util/json.js";
import { ChartData } from "./chartData.js";
import type { ChartModel } from "./chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH } from "./size.js";

/** The most points a chart reads (Prometheus sends at most 11,000 per series). */
export const MAX_CHART_POINTS = 2_000_000;

/** A range query's answer read for a chart: the answers' own result (for an empty one), and its series. */
export interface ChartAnswer {
  query: QueryResult;
  /** The series, reduced to what the chart and its text need (chartData.ts). */
  data: ChartData;
}

/**
 * Reads a range query's answer for a chart. Until the first series, each element also goes to the
 * answers' own collector, whose result (an empty one with its hint, or an answer with no series) is
 * the answer when there is nothing to draw; once there is, only the chart's reduction reads them, and
 * what the chart holds depends on the series and the chart's width, not on the points.
 */
export class ChartAnswerSink implements AnswerSink<ChartAnswer> {
  private readonly data: ChartData;
  private points = 0;

  constructor(
    private readonly collector: QueryResultCollector,
    range: QueryRange,
  ) {
    this.data = new ChartData(range);
  }

  element(raw: Uint8Array): void {
    const value = parseJsonBytes(raw);
    const series = asSeries(value);
    if (series === undefined) {
      if (this.data.series.length === 0) this.collector.element(raw);
      return;
    }
    this.points += series.values.length;
    if (this.points > MAX_CHART_POINTS) {
      throw new ToolError(
        `The answer has more than ${MAX_CHART_POINTS.toLocaleString("en-US")} points to draw: aggregate (sum by, topk) or use a larger step.`,
        "too_large",
      );
    }
    this.data.add(labelsOf(series.metric), series.values);
  }

  finish(data: unknown, answerBytes: number): ChartAnswer {
    return { query: this.collector.finish(data, answerBytes), data: this.data };
  }
}

function labelsOf(metric: unknown): Labels {
  if (typeof metric !== "object" || metric === null) return {};
  return Object.fromEntries(
    Object.entries(metric).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * What a chart shows, for the model and for the person: which series as lines (in the order drawn,
 * as their legend names them), how many more in the band, and the statistics of the series drawn as
 * lines and in the band, as the answers' own `series_stats` table, within `budget`: the lines' rows
 * always, the band's as far as they fit (a band of thousands of series would not), `rows_missing`
 * saying how many series the table leaves out.
 */
export function chartFacts(
  model: ChartModel,
  series: number,
  asked: { query: string; start: number; end: number; step: number; order: string },
  pngBytes: number,
  budget: Budget,
): Record<string, unknown> {
  // The lines' rows first, then the band's: the same lean table as the query answers' (see leanTable).
  const items = [...model.drawn, ...model.banded].map((one) => ({ kind: "series" as const, ...one }));
  const measure = new Measure({});
  const { heading, rows } = leanTable(items, measure);
  const chart = {
    query: asked.query,
    start: asked.start,
    end: asked.end,
    step: asked.step,
    order: asked.order,
    series,
    lines: model.lines.map((line) => line.label),
    in_band: model.others?.count ?? 0,
    infinities_marked: model.infinitiesMarked,
    // The threshold lines drawn (values as asked), only when some were.
    ...(model.thresholds.length > 0 ? { thresholds: model.thresholds } : {}),
    // An odd upstream's samples at times no date holds: in series_stats, not on the time axis.
    ...(model.undrawable > 0 ? { samples_not_drawn: model.undrawable } : {}),
    image: { format: "png", width: CHART_WIDTH, height: CHART_HEIGHT, bytes: pngBytes },
  };
  // Room for the rows: the budget less the rest, its marker included (written at its widest).
  const rest = measure.of({ chart: { ...chart, rows_missing: items.length }, series_stats: heading });
  const room = less(budget, rest);
  let count = rows.fitting(room);
  while (count < rows.count && rows.series(count) < model.drawn.length) count++;
  const missing = items.length - rows.series(count);
  return {
    chart: { ...chart, ...(missing > 0 ? { rows_missing: missing } : {}) },
    series_stats: { ...heading, rows: rows.first(count) },
  };
}
