import { Worker } from "node:worker_threads";
import { type RequestContext, timeLeft } from "../context.js";
import { ToolError } from "../errors.js";
import type { ChartPicture } from "./chartModel.js";
import type { RenderReply, RenderRequest } from "./renderWorker.js";
import { chartWorkerFile } from "./workerFile.js";

/**
 * Draws charts in a worker thread (renderWorker.ts), one at a time per process. The event loop stays
 * free while a chart is drawn: the request's deadline answer (-32001), a `ping`, every other caller
 * are answered meanwhile. A drawing still running at its call's deadline, or whose call is cancelled,
 * is stopped by ending the worker (which frees its CPU at once), and the call gets a tool error; the
 * next chart starts another. The worker is kept between charts (loading ECharts and resvg is most of a
 * first chart's time), and holds no process open while it waits.
 *
 * One at a time: a chart's drawing takes what memory it takes once, however many calls draw at once;
 * a call waits its turn in order, bound by its own deadline.
 */

/** The worker's V8 heap: a chart drawn from ten lines of a thousand columns and a band takes a few MB. */
const WORKER_HEAP_MB = 160;

/** The chart as a PNG, drawn in the worker; a ToolError when its call's deadline passes first, or it is cancelled. */
export async function drawChart(picture: ChartPicture, context: RequestContext): Promise<Uint8Array> {
  const release = await turn(context);
  try {
    return await drawInWorker(picture, context);
  } finally {
    release();
  }
}

/** Starts the worker and has it load the renderer, while the call reads Prometheus's answer. */
export function prepareDrawing(): void {
  void runningWorker().catch(() => undefined);
}

/** The worker, started or starting; undefined once it has ended (the next chart starts another). */
let worker: Promise<Worker> | undefined;

/** The worker now, if one is started or starting (tests watch it end). */
export function drawingWorker(): Promise<Worker> | undefined {
  return worker;
}

function runningWorker(): Promise<Worker> {
  worker ??= startWorker().catch((error: unknown) => {
    worker = undefined;
    throw error;
  });
  return worker;
}

async function startWorker(): Promise<Worker> {
  const started = new Worker(await chartWorkerFile(), {
    // None of the process's flags (an inline script, its --input-type, its heap): the worker's file is whole.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    // Its output is not the process's (over stdio, stdout is the protocol's): kept apart, and unread,
    // which would hold the process open. renderWorker.ts writes none.
    stdout: true,
    stderr: true,
  });
  const current = worker;
  // Ended (an error ends it too): forgotten, unless another has taken its place already.
  started.once("exit", () => {
    if (worker === current) worker = undefined;
  });
  started.on("error", () => undefined);
  started.unref();
  started.postMessage({ warm: true } satisfies RenderRequest);
  return started;
}

/** Ends the worker (a drawing under way stops now); the next chart starts another. */
function stopWorker(stopped: Worker, running: Promise<Worker>): void {
  if (worker === running) worker = undefined;
  void stopped.terminate();
}

async function drawInWorker(picture: ChartPicture, context: RequestContext): Promise<Uint8Array> {
  if (timeLeft(context) <= 0) throw late();
  const running = runningWorker();
  const drawing = await running;
  return new Promise<Uint8Array>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      drawing.off("message", onMessage);
      drawing.off("error", onError);
      drawing.off("exit", onExit);
      drawing.unref();
    };
    const onMessage = (reply: RenderReply) => {
      done();
      if ("png" in reply) resolve(reply.png);
      else reject(Object.assign(new Error(reply.error.message), reply.error));
    };
    const onError = (error: Error) => {
      done();
      reject(failed(error));
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`the chart worker exited (${code}) while drawing`));
    };
    const stop = (error: ToolError) => {
      done();
      stopWorker(drawing, running);
      reject(error);
    };
    const onAbort = () => stop(context.signal.reason?.name === "TimeoutError" ? late() : cancelled());
    const timer = setTimeout(() => stop(late()), Math.max(0, timeLeft(context)));
    if (context.signal.aborted) return onAbort();
    context.signal.addEventListener("abort", onAbort, { once: true });
    drawing.on("message", onMessage);
    drawing.once("error", onError);
    drawing.once("exit", onExit);
    // While it draws, the worker holds the process open: a script awaiting its chart gets it.
    drawing.ref();
    // The picture alone: the drawn series' labels and statistics stay here, for the text.
    const { title, lines, others, infinities, unit, thresholds } = picture;
    drawing.postMessage({
      picture: { title, lines, others, infinities, unit, thresholds },
    } satisfies RenderRequest);
  });
}

/** Whether a chart is being drawn, and the calls waiting their turn, in order. */
let drawingNow = false;
const waiting: Array<() => void> = [];

/** Resolves when it is this call's turn to draw, with what ends it; a ToolError if its deadline passes first. */
function turn(context: RequestContext): Promise<() => void> {
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) drawingNow = false;
    else next();
  };
  if (!drawingNow) {
    drawingNow = true;
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const start = () => {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      resolve(release);
    };
    const giveUp = (error: ToolError) => {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      const at = waiting.indexOf(start);
      if (at >= 0) waiting.splice(at, 1);
      reject(error);
    };
    const onAbort = () => giveUp(context.signal.reason?.name === "TimeoutError" ? late(true) : cancelled());
    const timer = setTimeout(() => giveUp(late(true)), Math.max(0, timeLeft(context)));
    context.signal.addEventListener("abort", onAbort, { once: true });
    waiting.push(start);
  });
}

function late(waited = false): ToolError {
  const why = waited
    ? "other charts were being drawn until this call's deadline"
    : "drawing it took until this call's deadline";
  return new ToolError(
    `The chart was not drawn: ${why}. Try again, or draw fewer series (limit) over a shorter range; ExecuteRangeQuery answers the numbers.`,
    "timeout",
  );
}

function cancelled(): ToolError {
  return new ToolError("The chart was not drawn: the call was cancelled.", "cancelled");
}

/** The worker died drawing: out of its memory (a ToolError), or something else (a fault, logged). */
function failed(error: Error): Error {
  if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new ToolError(
      "The chart was not drawn: drawing it needed more memory than the renderer has. Draw fewer series (limit).",
      "too_large",
    );
  }
  return error;
}
