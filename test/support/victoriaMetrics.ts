import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./net.js";
import { onPath, openMetricsText, stop } from "./prometheus.js";

/**
 * VictoriaMetrics single-node (Debian package `victoria-metrics`, which `.ci/run` installs) on
 * 127.0.0.1, loaded with the tests' dataset (the same OpenMetrics text the Prometheus of
 * ./prometheus.ts is built from) through its own import API, for comparing the tools' answers.
 */
export interface RunningVictoriaMetrics {
  /** Base URL; its Prometheus API is under `/api/v1` as Prometheus's is. */
  url: string;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

/** Whether `victoria-metrics` is installed; if not, says loudly which tests are skipped (CI fails on any skip). */
export function victoriaMetricsAvailable(): boolean {
  if (onPath("victoria-metrics")) return true;
  const bar = "!".repeat(100);
  console.warn(
    `\n${bar}\n!! SKIPPING the VictoriaMetrics tests: victoria-metrics is not installed (apt-get install victoria-metrics; .ci/run installs it)\n${bar}\n`,
  );
  return false;
}

/**
 * The dataset as Prometheus's text format with millisecond timestamps (what `/api/v1/import/prometheus`
 * reads): OpenMetrics' second timestamps times 1000, its comments and `# EOF` left out.
 */
export function importText(openMetrics = openMetricsText()): string {
  return openMetrics
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const at = line.lastIndexOf(" ");
      return `${line.slice(0, at)} ${Math.round(Number(line.slice(at + 1)) * 1000)}`;
    })
    .join("\n");
}

export async function startVictoriaMetrics(): Promise<RunningVictoriaMetrics> {
  const dir = await mkdtemp(join(tmpdir(), "vm-test-"));
  const port = await freePort();
  const child: ChildProcess = spawn(
    "victoria-metrics",
    [
      `-httpListenAddr=127.0.0.1:${port}`,
      `-storageDataPath=${dir}`,
      "-retentionPeriod=100y",
      "-loggerLevel=ERROR",
      // The dataset lies in the past: no point is "too close to now" to be trusted.
      "-search.latencyOffset=0s",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const url = `http://127.0.0.1:${port}`;
  const close = () => stop(child).then(() => rm(dir, { recursive: true, force: true }));
  try {
    await waitHealthy(url, child);
    const imported = await fetch(`${url}/api/v1/import/prometheus`, { method: "POST", body: importText() });
    if (imported.status !== 204)
      throw new Error(`import answered ${imported.status}: ${await imported.text()}`);
    // Imported samples become searchable after a flush (otherwise within a few seconds).
    await fetch(`${url}/internal/force_flush`);
    return { url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2000);
  });
  const until = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`victoria-metrics exited (${child.exitCode}): ${stderr}`);
    const answer = await fetch(`${url}/health`).catch(() => undefined);
    if (answer?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`victoria-metrics did not become healthy at ${url}: ${stderr}`);
}
