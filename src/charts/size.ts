/** The size a chat shows a chart at, readable there: what render.ts draws, what the chart's text says. */
export const CHART_WIDTH = 1000;
export const CHART_HEIGHT = 500;
