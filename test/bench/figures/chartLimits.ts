// Figure: PlotRangeQuery's limits (issue 36), today's function as shipped against revision ef6b31e's
// app in the same run, each in a child process of its own (test/support/chartProbe.ts):
// - chart-largest-memory(-two): the largest chart Prometheus can send (181 series × 11,000 points, the
//   2,000,000-point cap), one call and two at once, in a process with a 300 MB V8 heap: its peak RSS
//   (the kernel's count over its life, the renderer's worker thread included). ef6b31e aborts there: its
//   peak is then measured again with a 4 GB heap.
// - chart-long-labels: the label_join reproduction (ten 100,000-character labels), with 29 s left (API
//   Gateway's): how long its answer took, how it was answered, and the longest a `ping` sent meanwhile
//   through the same handler waited.
import {
  bundleAppAsShipped,
  bundleChartProbe,
  type ChartProbed,
  longLabelAnswer,
  probeChart,
  startBigAnswerServer,
} from "../../support/bigAnswer.js";
import { startFaultServer, successBody } from "../../support/faultServer.js";
import type { BenchContext } from "../context.js";
import { round } from "../measure.js";
import type { Figure } from "../report.js";
import { appOfRevision } from "../revision.js";

const BASE_REVISION = "ef6b31e";
const START = 1_700_000_000;
const LARGEST = { series: 181, points: 11_000 };
const HEAP_MB = 300;
/** Heap enough for ef6b31e's largest chart, to say what it takes where 300 MB aborts it. */
const ROOMY_HEAP_MB = 4_096;
/** API Gateway's 29 s: what the long-label call has left. */
const LEFT_MS = 29_000;
const MB = 2 ** 20;

const mb = (bytes: number) => round(bytes / MB, 1);
const seconds = (ms: number) => `${round(ms / 1000, 1)} s`;

function answeredWith(probed: ChartProbed): string {
  return probed.ended === "answered"
    ? probed.outcomes.map((text) => text.slice(0, 90)).join(" / ")
    : probed.ended;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const [probe, ours] = await Promise.all([bundleChartProbe(ctx.root), bundleAppAsShipped(ctx.root)]);
  const base = ctx.quick
    ? { reason: "not measured with --quick" }
    : await appOfRevision(ctx.root, BASE_REVISION);
  return [
    ...(await largest(ctx.root, probe, ours, base.file, base.reason ?? "")),
    await longLabels(probe, ours, base.file, base.reason ?? ""),
  ];
}

async function largest(
  root: string,
  probe: string,
  ours: string,
  before: string | undefined,
  reason: string,
): Promise<Figure[]> {
  const big = await startBigAnswerServer(LARGEST.series, LARGEST.points, root);
  const end = START + (LARGEST.points - 1) * 60;
  const args = { query: "big", start: String(START), end: String(end), step: "60s" };
  const points = (LARGEST.series * LARGEST.points).toLocaleString("en-US");
  try {
    const figures: Figure[] = [];
    for (const [calls, target] of [
      [1, 400],
      [2, 480],
    ] as const) {
      const mine = await probeChart(probe, ours, HEAP_MB, big.url, args, { calls });
      const then =
        before === undefined ? undefined : await probeChart(probe, before, HEAP_MB, big.url, args, { calls });
      const roomy =
        before !== undefined && then !== undefined && then.ended !== "answered"
          ? await probeChart(probe, before, ROOMY_HEAP_MB, big.url, args, { calls })
          : undefined;
      const answered = mine.ended === "answered" && mine.outcomes.every((text) => text === "image, text");
      const baseline = then && (then.ended === "answered" ? then : roomy);
      figures.push({
        id: calls === 1 ? "chart-largest-memory" : "chart-largest-memory-two",
        title: `PlotRangeQuery's largest chart (${LARGEST.series} series × ${LARGEST.points.toLocaleString("en-US")} points), ${calls === 1 ? "one call" : "two calls at once"}, in a process with a ${HEAP_MB} MB heap: peak RSS`,
        unit: "MB",
        ours: mb(mine.peakRss),
        ...(baseline?.ended === "answered"
          ? {
              baseline: {
                name:
                  then?.ended === "answered"
                    ? BASE_REVISION
                    : `${BASE_REVISION} with a ${ROOMY_HEAP_MB} MB heap (with ${HEAP_MB} MB it aborts)`,
                value: mb(baseline.peakRss),
              },
              ratio: baseline.peakRss / mine.peakRss,
            }
          : {}),
        target: `answered (an image) at ≤ ${target} MB peak RSS`,
        met: answered && mine.peakRss / MB <= target,
        note:
          `${points} points a call; ours: ${answeredWith(mine)} in ${seconds(mine.ms)} (RSS before ${mb(mine.baselineRss)} MB); ` +
          (then
            ? `${BASE_REVISION} with ${HEAP_MB} MB: ${answeredWith(then)}` +
              (roomy ? `; with ${ROOMY_HEAP_MB} MB: ${answeredWith(roomy)} in ${seconds(roomy.ms)}` : "")
            : `${BASE_REVISION}: ${reason}`),
      });
    }
    return figures;
  } finally {
    big.child.kill();
  }
}

async function longLabels(
  probe: string,
  ours: string,
  before: string | undefined,
  reason: string,
): Promise<Figure> {
  const upstream = await startFaultServer([{ status: 200, body: successBody(longLabelAnswer(START)) }]);
  const args = { query: "up", start: String(START), end: String(START + 59 * 60), step: "60" };
  try {
    const options = { leftMs: LEFT_MS, pings: true, timeoutMs: 900_000 };
    const mine = await probeChart(probe, ours, HEAP_MB, upstream.url, args, options);
    const then = before
      ? await probeChart(probe, before, HEAP_MB, upstream.url, args, options).catch(
          (error: unknown) => `did not finish: ${String(error).split("\n")[0]}`,
        )
      : undefined;
    const inTime = /^(image|tool error|error -32001)/.test(mine.outcomes[0] ?? "");
    const pinged = (probed: ChartProbed) =>
      `${probed.pinged ?? 0} pings due every 100 ms answered meanwhile, the longest wait ${round(probed.pingMs ?? Number.NaN, 0)} ms`;
    return {
      id: "chart-long-labels",
      title:
        "PlotRangeQuery of ten 100,000-character labels (the label_join reproduction), 29 s left: time to its answer",
      unit: "ms",
      ours: round(mine.ms, 0),
      ...(typeof then === "object" && then.ended === "answered"
        ? { baseline: { name: BASE_REVISION, value: round(then.ms, 0) }, ratio: then.ms / mine.ms }
        : {}),
      target: "answered within its 29 s (an image, a tool error or -32001); a ping meanwhile within 1 s",
      met: mine.ended === "answered" && inTime && mine.ms <= LEFT_MS && (mine.pingMs ?? Infinity) <= 1_000,
      note:
        `ours: ${answeredWith(mine)}; ${pinged(mine)}; ` +
        (then === undefined
          ? `${BASE_REVISION}: ${reason}`
          : typeof then === "string"
            ? `${BASE_REVISION}: ${then}`
            : `${BASE_REVISION}: ${answeredWith(then)} after ${seconds(then.ms)}; ${pinged(then)}`),
    };
  } finally {
    await upstream.close();
  }
}
