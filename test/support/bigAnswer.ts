import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { bundleAsShipped, bundleForNode } from "./bundle.js";
import { runToEnd } from "./childProcess.js";

/** The repository root, from this file's place in it (a bundle of it, such as the benchmark's, passes its own). */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** One answer as the big answer server saw it go: the bytes it wrote, and whether it sent it to its end. */
export interface ServedAnswer {
  query: string;
  bytes: number;
  /** False when the connection was closed before the answer's end: its reader gave it up. */
  whole: boolean;
}

/**
 * test/support/bigAnswerServer.mjs in a process of its own (what it allocates is not the reader's):
 * a Prometheus stand-in streaming one range answer of `series` series of `points` points, series i
 * valued i (`big_<n>` asks for n series instead). `answers` grows as it ends or sees given up each one.
 */
export async function startBigAnswerServer(
  series: number,
  points: number,
  root = ROOT,
): Promise<{ url: string; child: ChildProcess; answers: ServedAnswer[] }> {
  const child = spawn(
    process.execPath,
    [join(root, "test/support/bigAnswerServer.mjs"), String(series), String(points)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const answers: ServedAnswer[] = [];
  // Its first line is its URL; each further line an answer.
  const listening = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      if (line.startsWith("http://")) resolve(line.trim());
      else answers.push(JSON.parse(line) as ServedAnswer);
    });
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`bigAnswerServer.mjs exited (${code}) before it listened`);
  });
  return { url: await Promise.race([listening, exited]), child, answers };
}

/** test/support/streamProbe.ts bundled to one file a child Node can run. */
export async function bundleStreamProbe(root = ROOT): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stream-probe-"));
  return bundleForNode(join(root, "test/support/streamProbe.ts"), join(dir, "streamProbe.mjs"));
}

/** What one ExecuteRangeQuery through the handler cost a process whose V8 heap is `heapMb`. */
export interface Probed {
  status: number;
  body: string;
  ms: number;
  baselineRss: number;
  peakRss: number;
}

/** `bare`: the probe only fetches the answer and reads it to its end, for a baseline. */
export async function probeRangeQuery(
  probe: string,
  heapMb: number,
  prometheusUrl: string,
  args: Record<string, string>,
  mode: "handler" | "bare" = "handler",
): Promise<Probed> {
  const run = await runToEnd(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, probe, prometheusUrl, JSON.stringify(args), mode],
    { timeoutMs: 60_000 },
  );
  if (run.code !== 0) throw new Error(`the stream probe failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Probed;
}

/** test/support/chartProbe.ts bundled to one file a child Node can run. */
export async function bundleChartProbe(root = ROOT): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "chart-probe-"));
  return bundleForNode(join(root, "test/support/chartProbe.ts"), join(dir, "chartProbe.mjs"));
}

/** Today's app (createHandler, loadConfig) bundled as the function ships it, into a new folder: its module. */
export async function bundleAppAsShipped(root = ROOT): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "app-shipped-"));
  await bundleAsShipped(root, dir, {
    stdin: {
      contents:
        'export { createHandler } from "./src/lambda/app.ts";\nexport { loadConfig } from "./src/config/index.ts";\n',
      resolveDir: root,
      sourcefile: "app.ts",
      loader: "ts",
    },
  });
  return join(dir, "stdin.mjs");
}

/** What PlotRangeQuery calls at once cost a process whose V8 heap is `heapMb` (chartProbe.ts). */
export interface ChartProbed {
  /** How the process ended: `answered`, or why not (a heap limit's abort). */
  ended: string;
  /** How each call was answered (chartProbe.ts's outcome), when the process answered. */
  outcomes: string[];
  ms: number;
  baselineRss: number;
  /** The process's peak resident memory over its life (bytes), worker threads included. */
  peakRss: number;
  /** With `pings`: the longest a ping waited for its answer while the calls ran, and how many were answered. */
  pingMs?: number;
  pinged?: number;
}

/** Runs the probe on the app module `app`: `calls` PlotRangeQuery calls at once with `args`. */
export async function probeChart(
  probe: string,
  app: string,
  heapMb: number,
  prometheusUrl: string,
  args: Record<string, string>,
  options: { calls?: number; leftMs?: number; timeoutMs?: number; pings?: boolean } = {},
): Promise<ChartProbed> {
  const { calls = 1, leftMs = 120_000, timeoutMs = 600_000, pings = false } = options;
  const run = await runToEnd(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      probe,
      app,
      prometheusUrl,
      JSON.stringify(args),
      String(calls),
      String(leftMs),
      pings ? "pings" : "",
    ],
    { timeoutMs },
  );
  if (run.code === 0) return { ended: "answered", ...(JSON.parse(run.stdout) as Omit<ChartProbed, "ended">) };
  const heap = /heap limit|heap out of memory/i.test(run.stderr);
  return {
    ended: heap
      ? `aborted: out of its ${heapMb} MB heap (exit ${run.code})`
      : `failed (exit ${run.code}): ${run.stderr.slice(-300)}`,
    outcomes: [],
    ms: Number.NaN,
    baselineRss: Number.NaN,
    peakRss: Number.NaN,
  };
}

/**
 * The label_join reproduction (issue 36): a range answer of ten series whose joined label is 100,000
 * characters, alike but for their last one (a query of 1.9 KB makes such labels); drawn whole, their
 * legend took ~140 s of CPU. `data` of a Prometheus answer: 60 points a minute apart from `start`.
 */
export function longLabelAnswer(start = 1_700_000_000): { resultType: "matrix"; result: unknown[] } {
  const result = Array.from({ length: 10 }, (_, index) => ({
    metric: { __name__: "up", job: "api", joined: `${"a,b,c,".repeat(16_667)}${index}`.slice(-100_000) },
    values: Array.from({ length: 60 }, (_, at) => [start + at * 60, String(index + Math.sin(at / 5))]),
  }));
  return { resultType: "matrix", result };
}
