/**
 * What PlotRangeQuery runs, loaded by its first call (tools/plotRangeQuery.ts imports this module
 * dynamically): in the bundles a chunk of its own, the renderer's heavier chunks behind it, so the
 * other tools' cold start carries none of it (bench case cold-start-charts-present).
 */
export { ChartAnswerSink, chartFacts } from "./chartAnswer.js";
export { chartModel } from "./chartModel.js";
export { renderPng } from "./render.js";
