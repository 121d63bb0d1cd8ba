import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { boundValue, isCutValue } from "../../src/monitoredText.js";
import {
  bundleAppAsShipped,
  bundleChartProbe,
  longLabelAnswer,
  probeChart,
  startBigAnswerServer,
} from "../support/bigAnswer.js";
import { captureOutput } from "../support/capture.js";
import { type SeriesTableValue, tableSeries } from "../support/cutResults.js";
import { startFaultServer, successBody } from "../support/faultServer.js";
import { callHttp, JSON_HEADERS, makeHandler, postMcp } from "../support/handler.js";

// PlotRangeQuery's limits (issue 36): a chart of long labels is answered in time while other requests
// are answered meanwhile; the largest chart Prometheus can send is drawn by a process with a 300 MB
// heap; timestamps no date holds do not fault. Only the order of events is asserted, never a duration.

const START = 1_700_000_000;
const RANGE = { query: "up", start: String(START), end: String(START + 59 * 60), step: "60" };

interface CallResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** How a reply answered: `image`, `tool error`, or the JSON-RPC error's code (-32001: the deadline). */
function answered(body: string): string {
  const reply = JSON.parse(body) as { result?: CallResult; error?: { code: number } };
  if (reply.error !== undefined) return String(reply.error.code);
  if (reply.result?.isError === true) return "tool error";
  return reply.result?.content[0]?.type ?? "nothing";
}

/** A Prometheus stand-in answering every query with `body`. */
async function answering(body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const text = JSON.stringify(body);
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "content-type": "application/json" });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("PlotRangeQuery's long labels", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("answers the long-label chart in time (an image, a tool error or -32001), a ping sent while it is drawn answered first", async () => {
    // (The drawing is in a worker thread: the test sees it start where the chart is posted to the worker.)
    const upstream = await answering(successBody(longLabelAnswer(START)));
    try {
      const handler = makeHandler({ PROMETHEUS_URL: upstream.url, PROMETHEUS_AUTH: "none" });
      const events: string[] = [];
      const post = Worker.prototype.postMessage;
      const drawing = new Promise<void>((resolve) => {
        vi.spyOn(Worker.prototype, "postMessage").mockImplementation(function (
          this: Worker,
          message,
          transfer,
        ) {
          if (typeof message === "object" && message !== null && "picture" in message) resolve();
          post.call(this, message, transfer);
        });
      });
      // API Gateway's 29 s.
      const plot = callHttp(
        handler,
        {
          method: "POST",
          path: "/mcp",
          headers: JSON_HEADERS,
          body: JSON.stringify(toolCall(1, "PlotRangeQuery", RANGE)),
        },
        "v2",
        29_000,
      ).then((http) => {
        events.push("plot answered");
        return http;
      });
      // The call has read Prometheus's answer and asks its worker to draw.
      await drawing;
      events.push("ping sent");
      await postMcp(handler, { jsonrpc: "2.0", id: 2, method: "ping" });
      events.push("ping answered");
      const http = await plot;
      expect(events).toStrictEqual(["ping sent", "ping answered", "plot answered"]);
      expect(["image", "tool error", "-32001"]).toContain(answered(http.body));
      const result = (JSON.parse(http.body) as { result?: CallResult }).result;
      if (result?.isError !== true && result?.structuredContent !== undefined) {
        // The legend cut its entries; series_stats keeps every label within the per-value cap, each
        // series still told apart (the labels differ at their end).
        const facts = result.structuredContent as {
          chart: { lines: string[] };
          series_stats: SeriesTableValue;
        };
        for (const line of facts.chart.lines) expect(line.length).toBeLessThanOrEqual(60);
        const joined = tableSeries(facts.series_stats).map(
          ({ labels }) => labels.joined as string | undefined,
        );
        expect(new Set(joined).size).toBe(10);
        for (const value of joined) {
          expect(value !== undefined && isCutValue(value)).toBe(true);
          expect(value).toBe(boundValue(`${"a,b,c,".repeat(16_667)}${value?.at(-1)}`.slice(-100_000)));
        }
      }
    } finally {
      await upstream.close();
    }
  }, 120_000);
});

describe("PlotRangeQuery and timestamps no date holds (an odd upstream)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("draws the others and counts those not drawn, as ExecuteRangeQuery answers the same: no fault, no ERROR", async () => {
    const result = [
      {
        metric: { __name__: "up", job: "a" },
        values: [
          [START, "1"],
          [1e13, "2"],
          [-1e13, "3"],
          [START + 60, "4"],
        ],
      },
      { metric: { __name__: "up", job: "b" }, values: [[START + 120, "5"]] },
    ];
    const server = await startFaultServer([
      { status: 200, body: successBody({ resultType: "matrix", result }) },
    ]);
    try {
      const handler = makeHandler({ PROMETHEUS_URL: server.url, PROMETHEUS_AUTH: "none", LOG_LEVEL: "WARN" });
      const output = captureOutput();
      const [plot, execute] = [
        await postMcp(handler, toolCall(1, "PlotRangeQuery", RANGE)),
        await postMcp(handler, toolCall(2, "ExecuteRangeQuery", RANGE)),
      ];
      vi.restoreAllMocks();
      expect(answered(execute.body)).toBe("text");
      expect(answered(plot.body)).toBe("image");
      const facts = (JSON.parse(plot.body) as { result: CallResult }).result.structuredContent as {
        chart: { samples_not_drawn: number; series: number };
        series_stats: { rows: unknown[][] };
      };
      expect(facts.chart).toMatchObject({ samples_not_drawn: 2, series: 2 });
      // Its statistics count every sample, as the answer has them: job a's 4, job b's 1.
      expect(facts.series_stats.rows.map((row) => row[5]).sort()).toStrictEqual([1, 4]);
      expect(output.text()).not.toMatch(/"level":"ERROR"/);
      expect(output.text()).not.toMatch(/\n\s+at /);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("the largest chart Prometheus can send (181 series × 11,000 points, the 2,000,000-point cap)", () => {
  let big: Awaited<ReturnType<typeof startBigAnswerServer>>;
  let probe: string;
  let app: string;

  beforeAll(async () => {
    big = await startBigAnswerServer(181, 11_000);
    [probe, app] = await Promise.all([bundleChartProbe(), bundleAppAsShipped()]);
  }, 120_000);

  afterAll(() => {
    big?.child.kill();
  });

  it("is drawn by the function as shipped in a process with a 300 MB heap (which aborted before)", async () => {
    const args = { query: "big", start: String(START), end: String(START + 10_999 * 60), step: "60s" };
    const probed = await probeChart(probe, app, 300, big.url, args, { timeoutMs: 300_000 });
    expect(probed.ended).toBe("answered");
    expect(probed.outcomes).toStrictEqual(["image, text"]);
  }, 320_000);
});
