import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runToEnd } from "./childProcess.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * test/support/bigAnswerServer.mjs in a process of its own (what it allocates is not the reader's):
 * a Prometheus stand-in streaming one range answer of `series` series of `points` points, series i
 * valued i (`big_<n>` asks for n series instead).
 */
export async function startBigAnswerServer(
  series: number,
  points: number,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [join(root, "test/support/bigAnswerServer.mjs"), String(series), String(points)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { url: line.toString().trim(), child };
}

/** test/support/streamProbe.ts bundled to one file a child Node can run. */
export async function bundleStreamProbe(): Promise<string> {
  const { build } = await import("esbuild");
  const dir = await mkdtemp(join(tmpdir(), "stream-probe-"));
  const outfile = join(dir, "streamProbe.mjs");
  await build({
    entryPoints: [join(root, "test/support/streamProbe.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return outfile;
}

/** What one ExecuteRangeQuery through the handler cost a process whose V8 heap is `heapMb`. */
export interface Probed {
  status: number;
  body: string;
  ms: number;
  baselineRss: number;
  peakRss: number;
}

export async function probeRangeQuery(
  probe: string,
  heapMb: number,
  prometheusUrl: string,
  args: Record<string, string>,
): Promise<Probed> {
  const run = await runToEnd(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, probe, prometheusUrl, JSON.stringify(args)],
    { timeoutMs: 60_000 },
  );
  if (run.code !== 0) throw new Error(`the stream probe failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Probed;
}
