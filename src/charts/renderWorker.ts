import { parentPort } from "node:worker_threads";
import type { ChartPicture } from "./chartModel.js";
import { loadChartRenderer, renderPng } from "./render.js";

/** What the worker is asked: to load the renderer ahead of a chart, or to draw one. */
export type RenderRequest = { warm: true } | { picture: ChartPicture };

/** What it answers a drawing with: the PNG, or why it could not (our fault: logged with its stack). */
export type RenderReply = { png: Uint8Array } | { error: { name: string; message: string; stack?: string } };

/**
 * The worker's side of drawing.ts: draws each chart asked for, one at a time, and answers it. Its
 * entry is built by scripts/chart-worker-build.mjs (src/ modules run nothing when imported). Its
 * console writes nothing: over stdio the process's stdout carries JSON-RPC alone, and what ECharts
 * warns of (a time axis of a thousand years) is not the function's log.
 */
export function serveRenders(): void {
  const port = parentPort;
  if (port === null) throw new Error("serveRenders runs in a worker thread");
  const quiet = () => undefined;
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) console[method] = quiet;
  port.on("message", (request: RenderRequest) => {
    if ("warm" in request) {
      // A failure to load is told to the chart that needs it, which loads again.
      loadChartRenderer().catch(quiet);
      return;
    }
    renderPng(request.picture).then(
      (png) => port.postMessage({ png } satisfies RenderReply),
      (error: unknown) => {
        const { name = "Error", message = String(error), stack } = error instanceof Error ? error : {};
        port.postMessage({ error: { name, message, stack } } satisfies RenderReply);
      },
    );
  });
}
