import { Writable } from "node:stream";
import { configFromEnvironment } from "../../../src/config/index.js";
import { createHandler } from "../../../src/lambda/app.js";
import { createStreamingHandler } from "../../../src/lambda/streaming.js";
import { httpEvent, lambdaContext } from "../../support/events.js";
import { type FrontDoor, startFrontDoor } from "../../support/frontDoor.js";
import { type LambdaFunction, startLambdaFunction } from "../../support/lambdaFunction.js";
import { installStreamingRuntime } from "../../support/lambdaStreaming.js";
import { WHOLE_DATASET_RANGE } from "../../support/prometheus.js";
import { startSlowProxy } from "../../support/slowProxy.js";
import type { BenchContext } from "../context.js";
import { interleave, round, type Stats, stats } from "../measure.js";
import type { Figure } from "../report.js";

/** When a slow query's answer began, and when it was whole, in ms from its request. */
interface Timing {
  firstByte: number;
  whole: number;
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export async function run(ctx: BenchContext): Promise<Figure[]> {
  return [await warmToolsList(ctx), ...(await slowQuery(ctx))];
}

/**
 * Warm tools/list: the streaming entry against the buffered handler, each side's own code alone. What
 * the Lambda runtime does with an answer is left out on both sides: serializing the buffered answer
 * (JSON.stringify), and for the streamed one the response stream and its prelude (`awslambda`'s,
 * replaced here by a stream that takes writes and does nothing). The note measures both.
 */
async function warmToolsList(ctx: BenchContext): Promise<Figure> {
  installStreamingRuntime();
  const config = configFromEnvironment();
  const buffered = createHandler(config) as unknown as (event: unknown, context: unknown) => Promise<unknown>;
  const streaming = createStreamingHandler(config) as unknown as (
    event: unknown,
    stream: Writable,
    context: unknown,
  ) => Promise<void>;
  const event = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const iterations = ctx.quick ? 50 : 5_000;
  const warmup = ctx.quick ? 10 : 500;
  const context = lambdaContext(60_000);
  const runtime = (globalThis as unknown as { awslambda: { HttpResponseStream: unknown } }).awslambda;
  const realFrom = runtime.HttpResponseStream;
  const nothing = { write: () => true, end: () => undefined, writableEnded: false } as unknown as Writable;
  runtime.HttpResponseStream = { from: (stream: Writable) => stream };
  let ours: Stats;
  let baseline: Stats;
  try {
    [ours, baseline] = await interleave(
      () => streaming(event, nothing, context),
      () => buffered(event, context),
      iterations,
      warmup,
    );
  } finally {
    runtime.HttpResponseStream = realFrom;
  }
  // The runtime's parts: serializing the buffered answer; a real stream and prelude for the streamed one.
  const answer = await buffered(event, context);
  const sinks = Array.from({ length: iterations }, () =>
    Object.assign(new Writable({ decodeStrings: false, write: (_chunk, _encoding, done) => done() }), {
      setContentType() {},
    }),
  );
  const [serialized, streamed] = await interleave(
    async () => JSON.stringify(answer),
    () => streaming(event, sinks.pop() as Writable, context),
    iterations - 10,
    10,
  );
  const ratio = round(baseline.p50 / ours.p50, 2);
  return {
    id: "streaming-tools-list",
    title: "Warm tools/list through the streaming entry (the handler's own code)",
    unit: "ms",
    ours,
    baseline: { name: "the buffered handler", value: baseline },
    ratio,
    target: "within 10% of buffered (ratio ≥ 0.91)",
    met: ratio >= 0.91,
    note: `with the runtime's parts: the buffered answer's JSON.stringify takes p50 ${serialized.p50.toFixed(4)} ms (a buffered answer costs ${(baseline.p50 + serialized.p50).toFixed(4)} ms in all); the streaming entry writing into a Node stream with its prelude, ${streamed.p50.toFixed(4)} ms`,
  };
}

/** The slow query through each front door: time to the answer's first byte, and to its end. */
async function slowQuery(ctx: BenchContext): Promise<Figure[]> {
  const proxy = await startSlowProxy(ctx.prometheusUrl, {
    headersAfterMs: 1_000,
    chunkBytes: 2048,
    chunkEveryMs: 100,
  });
  const environment = {
    PROMETHEUS_URL: proxy.url,
    PROMETHEUS_AUTH: "none",
    MAX_RESULT_TOKENS: "1000",
    LOG_LEVEL: "WARN",
    SESSIONS: "off",
  };
  const lambdas: LambdaFunction[] = [];
  const doors: FrontDoor[] = [];
  try {
    for (const entry of ["handler", "streamHandler"] as const) {
      const lambda = await startLambdaFunction(ctx.root, entry, environment);
      lambdas.push(lambda);
      doors.push(await startFrontDoor(lambda.api));
    }
    const [bufferedDoor, streamingDoor] = doors as [FrontDoor, FrontDoor];
    const ask = async (url: string, progressToken: string | undefined) => {
      const started = performance.now();
      const params = { name: "ExecuteRangeQuery", arguments: WHOLE_DATASET_RANGE };
      const response = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: progressToken === undefined ? params : { ...params, _meta: { progressToken } },
        }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let firstByte: number | undefined;
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        firstByte ??= performance.now() - started;
        text += Buffer.from(value).toString("utf8");
      }
      if (!text.includes('"series_stats"')) throw new Error(`no result: ${text.slice(0, 300)}`);
      return { firstByte: firstByte ?? Number.NaN, whole: performance.now() - started };
    };
    const rounds = ctx.quick ? 2 : 12;
    const samples: { streamed: Timing[]; buffered: Timing[] } = { streamed: [], buffered: [] };
    for (let i = 0; i < rounds + 1; i++) {
      const streamed = await ask(streamingDoor.url, `bench-${i}`);
      const buffered = await ask(bufferedDoor.url, undefined);
      if (i === 0) continue; // the warm-up: each container's cold start
      samples.streamed.push(streamed);
      samples.buffered.push(buffered);
    }
    const of = (side: Timing[], key: keyof Timing) => stats(side.map((timing) => timing[key]));
    const firstByte = {
      ours: of(samples.streamed, "firstByte"),
      baseline: of(samples.buffered, "firstByte"),
    };
    const whole = { ours: of(samples.streamed, "whole"), baseline: of(samples.buffered, "whole") };
    const firstRatio = round(firstByte.baseline.p50 / firstByte.ours.p50, 2);
    const wholeRatio = round(whole.baseline.p50 / whole.ours.p50, 2);
    return [
      {
        id: "streaming-first-byte",
        title: "Slow query: time to the answer's first byte, streamed (progress) vs buffered",
        unit: "ms",
        ours: firstByte.ours,
        baseline: { name: "buffered (one JSON body)", value: firstByte.baseline },
        ratio: firstRatio,
        target: "the first byte before Prometheus answers (ratio ≥ 2)",
        met: firstRatio >= 2,
      },
      {
        id: "streaming-result",
        title: "Slow query: time to the whole result, streamed vs buffered",
        unit: "ms",
        ours: whole.ours,
        baseline: { name: "buffered (one JSON body)", value: whole.baseline },
        ratio: wholeRatio,
        target: "no slower (ratio ≥ 0.9)",
        met: wholeRatio >= 0.9,
      },
    ];
  } finally {
    await Promise.all([...doors.map((door) => door.close()), proxy.close()]);
    await Promise.all(lambdas.map((lambda) => lambda.close()));
  }
}
