/**
 * What PlotRangeQuery runs, loaded by its first call (tools/plotRangeQuery.ts imports this module
 * dynamically): in the bundles a chunk of its own. The renderer (ECharts, resvg) is not in it: it runs
 * in a worker of its own file (drawing.ts), so the other tools' cold start carries none of it (bench
 * case cold-start-charts-present).
 */
export { ChartAnswerSink, chartFacts } from "./chartAnswer.js";
export { chartOf } from "./chartModel.js";
export { drawChart, prepareDrawing } from "./drawing.js";
