import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { type ChartPicture, chartModel } from "../../src/charts/chartModel.js";
import { drawChart, drawingWorker } from "../../src/charts/drawing.js";
import { renderPng } from "../../src/charts/render.js";
import { type StartedRequest, startRequest, withCancellation } from "../../src/context.js";
import { ToolError } from "../../src/errors.js";

// PlotRangeQuery draws in a worker thread (src/charts/drawing.ts), one chart at a time: the event loop
// stays free while it draws, and a drawing still running at its call's deadline is stopped by ending the
// worker. Only the order of events is asserted, never a duration.

const START = 1_700_000_000;
const model = chartModel(
  [
    {
      metric: { __name__: "up", job: "api" },
      values: Array.from({ length: 60 }, (_, at) => [START + at * 60, String(Math.sin(at / 5))] as const),
    },
  ],
  { title: "up", order: "unusual" },
);
/**
 * A picture whose drawing takes far longer than any deadline here (minutes): a title of 100,000
 * characters, which ECharts and resvg lay out in more than linear time. The model never makes one
 * (its title is cut); this one is made by hand to hold the worker.
 */
const slow: ChartPicture = { ...model, title: "ab ".repeat(33_334) };

const requests: StartedRequest[] = [];
function within(timeoutMs: number): StartedRequest {
  const request = startRequest({ timeoutMs });
  requests.push(request);
  return request;
}

afterEach(() => {
  for (const request of requests.splice(0)) request.end();
});

/** What the call got: `png`, or the ToolError's kind. */
function outcome(drawing: Promise<Uint8Array>): Promise<string> {
  return drawing.then(
    () => "png",
    (error: unknown) => (error instanceof ToolError ? error.kind : `fault: ${String(error)}`),
  );
}

describe("drawing a chart in its worker", () => {
  it("draws what renderPng draws on this thread", async () => {
    const [inWorker, here] = [await drawChart(model, within(60_000)), await renderPng(model)];
    expect(Buffer.from(inWorker).equals(Buffer.from(here))).toBe(true);
  }, 60_000);

  it("stops a drawing still running at its call's deadline: a tool error, the event loop free meanwhile, the worker ended; the next chart draws", async () => {
    await drawChart(model, within(60_000));
    const events: string[] = [];
    const drawing = outcome(drawChart(slow, within(1_500)));
    const worker = await drawingWorker();
    if (worker === undefined) throw new Error("no worker");
    const ended = once(worker, "exit").then(() => events.push("worker ended"));
    events.push("drawing");
    const ticking = setInterval(() => {
      if (events.at(-1) !== "tick") events.push("tick");
    }, 20);
    try {
      events.push(`call: ${await drawing}`);
      await ended;
    } finally {
      clearInterval(ticking);
    }
    // Timers ran while it drew, until the call got its error at its deadline; the worker's thread is gone.
    expect(events.slice(0, 3)).toStrictEqual(["drawing", "tick", "call: timeout"]);
    expect(events).toContain("worker ended");
    expect(await outcome(drawChart(model, within(60_000)))).toBe("png");
  }, 60_000);

  it("draws one chart at a time: the next waits its turn, one whose deadline passes while it waits gets a tool error", async () => {
    await drawChart(model, within(60_000));
    const events: string[] = [];
    const record = (name: string, drawing: Promise<Uint8Array>) =>
      outcome(drawing).then((result) => events.push(`${name}: ${result}`));
    // The slow one holds the worker until its deadline; the short one's deadline passes while it waits.
    const all = [
      record("slow", drawChart(slow, within(4_000))),
      record("short wait", drawChart(model, within(1_000))),
      record("patient", drawChart(model, within(60_000))),
    ];
    await Promise.all(all);
    expect(events).toStrictEqual(["short wait: timeout", "slow: timeout", "patient: png"]);
  }, 60_000);

  it("stops a drawing whose call is cancelled", async () => {
    await drawChart(model, within(60_000));
    const cancel = new AbortController();
    const drawing = outcome(drawChart(slow, withCancellation(within(60_000), cancel.signal)));
    const worker = await drawingWorker();
    if (worker === undefined) throw new Error("no worker");
    const ended = once(worker, "exit");
    setTimeout(() => cancel.abort(), 200);
    expect(await drawing).toBe("cancelled");
    await ended;
  }, 60_000);
});
