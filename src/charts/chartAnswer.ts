import { ToolError } from "../errors.js";
import { parseJsonBytes } from "../json.js";
import type { AnswerSink } from "../prometheus/answerReader.js";
import type { Labels } from "../results/labelSets.js";
import type { QueryResult, QueryResultCollector } from "../results/queryResult.js";
import { asSeries } from "../results/series.js";
import { SeriesStats } from "../results/stats.js";
import { commonLabels, differingLabels, RANGE_COLUMNS, rangeRow } from "../results/table.js";
import { type ChartModel, type MatrixSeries, sampleValue } from "./chartModel.js";
import { CHART_HEIGHT, CHART_WIDTH } from "./render.js";

/** The most points a chart reads: more cannot be seen at CHART_WIDTH pixels, nor held cheaply. */
export const MAX_CHART_POINTS = 2_000_000;

/** A range query's answer read for a chart: the answers' own result (for an empty one), and its series. */
export interface ChartAnswer {
  query: QueryResult;
  series: MatrixSeries[];
}

/**
 * Reads a range query's answer for a chart: each element goes to the answers' own collector (whose
 * empty result, with its hint, is the answer when nothing matched) and is kept as a series to draw.
 */
export class ChartAnswerSink implements AnswerSink<ChartAnswer> {
  private readonly series: MatrixSeries[] = [];
  private points = 0;

  constructor(private readonly collector: QueryResultCollector) {}

  element(raw: Uint8Array): void {
    this.collector.element(raw);
    const series = asSeries(parseJsonBytes(raw));
    if (series === undefined) return;
    this.points += series.values.length;
    if (this.points > MAX_CHART_POINTS) {
      throw new ToolError(
        `The answer has more than ${MAX_CHART_POINTS.toLocaleString("en-US")} points to draw: aggregate (sum by, topk) or use a larger step.`,
        "too_large",
      );
    }
    this.series.push({ metric: labelsOf(series.metric), values: series.values });
  }

  finish(data: unknown, answerBytes: number): ChartAnswer {
    return { query: this.collector.finish(data, answerBytes), series: this.series };
  }
}

function labelsOf(metric: unknown): Labels {
  if (typeof metric !== "object" || metric === null) return {};
  return Object.fromEntries(
    Object.entries(metric).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * What a chart shows, for the model and for the person: which series as lines (in the order drawn),
 * how many more in the band, and the statistics of the series drawn as lines, as the answers' own
 * `series_stats` table.
 */
export function chartFacts(
  model: ChartModel,
  series: readonly MatrixSeries[],
  asked: { query: string; start: number; end: number; step: number; order: string },
  pngBytes: number,
): Record<string, unknown> {
  const common = commonLabels(model.drawn.map((one) => one.metric));
  const rows = model.drawn.map((one) => {
    const stats = new SeriesStats();
    for (const [time, text] of one.values) stats.add(time, sampleValue(text));
    return rangeRow(differingLabels(one.metric, common), stats);
  });
  return {
    chart: {
      query: asked.query,
      start: asked.start,
      end: asked.end,
      step: asked.step,
      order: asked.order,
      series: series.length,
      lines: model.lines.map((line) => line.label),
      in_band: model.others?.count ?? 0,
      infinities_marked: model.infinities.length,
      image: { format: "png", width: CHART_WIDTH, height: CHART_HEIGHT, bytes: pngBytes },
    },
    series_stats: { common_labels: common, columns: RANGE_COLUMNS, rows },
  };
}
