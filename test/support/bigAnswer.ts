import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { bundleForNode } from "./bundle.js";
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
