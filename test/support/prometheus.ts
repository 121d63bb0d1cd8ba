import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./net.js";

/**
 * The deterministic dataset loaded into the test Prometheus: one sample every 15 s from START to END
 * (inclusive), at fixed epoch seconds. Sample i is at START + i * INTERVAL.
 */
export const DATASET = {
  start: 1_700_000_000,
  end: 1_700_003_600,
  intervalSeconds: 15,
  sampleCount: 241,
} as const;

/**
 * ExecuteRangeQuery's arguments for every series of the dataset over its whole hour at its interval:
 * four series, an answer of some kilobytes, long enough to be read slowly through a slow proxy.
 */
export const WHOLE_DATASET_RANGE = {
  query: '{__name__=~"test_.+|probe_success"}',
  start: String(DATASET.start),
  end: String(DATASET.end),
  step: String(DATASET.intervalSeconds),
};

/** Label value full of characters that need percent-encoding (space, `+`, `/`, `?`, `&`, `=`, `!'()*`). */
export const AWKWARD_INSTANCE = "https://x y+z/path?a=1&b=(2)*'!'";

/** Every series in the dataset, with its value at sample index i. */
export const SERIES = [
  { name: "test_requests_total", labels: { job: "api", instance: "a" }, value: (i: number) => 10 * i },
  { name: "test_requests_total", labels: { job: "api", instance: "b" }, value: (i: number) => 4 * i },
  { name: "test_temperature_celsius", labels: { room: "lab" }, value: (i: number) => 20 + (i % 8) * 0.5 },
  { name: "probe_success", labels: { instance: AWKWARD_INSTANCE }, value: () => 1 },
] as const;

/** Metric names in the dataset, sorted by code point. */
export const METRIC_NAMES = ["probe_success", "test_requests_total", "test_temperature_celsius"] as const;

const FAMILIES = [
  { family: "test_requests", type: "counter", help: "Requests served." },
  { family: "test_temperature_celsius", type: "gauge", help: "Lab temperature." },
  { family: "probe_success", type: "gauge", help: "Whether the probe succeeded." },
] as const;

/** The sample index in effect at epoch second t (the last sample at or before t). */
export function sampleIndexAt(t: number): number {
  return Math.max(
    0,
    Math.min(DATASET.sampleCount - 1, Math.floor((t - DATASET.start) / DATASET.intervalSeconds)),
  );
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** The dataset in OpenMetrics text format, each family's series grouped and in timestamp order. */
export function openMetricsText(): string {
  const lines: string[] = [];
  for (const { family, type, help } of FAMILIES) {
    lines.push(`# HELP ${family} ${help}`, `# TYPE ${family} ${type}`);
    for (const series of SERIES.filter((s) => s.name === family || s.name === `${family}_total`)) {
      const labels = Object.entries(series.labels)
        .map(([key, value]) => `${key}="${escapeLabel(value)}"`)
        .join(",");
      for (let i = 0; i < DATASET.sampleCount; i++) {
        lines.push(
          `${series.name}{${labels}} ${series.value(i)} ${DATASET.start + i * DATASET.intervalSeconds}`,
        );
      }
    }
  }
  lines.push("# EOF");
  return `${lines.join("\n")}\n`;
}

/** True when an executable named `binary` is in a PATH directory. */
export function onPath(binary: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * True when `prometheus` and `promtool` are on PATH. When they are not: throws under CI (CI must never skip),
 * otherwise prints a loud warning and returns false, for `describe.skipIf(!prometheusAvailable())`.
 */
export function prometheusAvailable(): boolean {
  const missing = ["prometheus", "promtool"].filter((binary) => !onPath(binary));
  if (missing.length === 0) return true;
  const text = `${missing.join(" and ")} not found on PATH (Debian/Ubuntu: apt-get install prometheus)`;
  if (process.env.CI) throw new Error(`CI must not skip the Prometheus integration tests: ${text}`);
  const bar = "!".repeat(78);
  console.warn(`\n${bar}\n!! SKIPPING Prometheus integration tests: ${text}\n${bar}\n`);
  return false;
}

export interface RunningPrometheus {
  /** Base URL, e.g. `http://127.0.0.1:41234` (the HTTP API is under `/api/v1`). */
  url: string;
  /** The `data` of an HTTP API answer (`api("query", { query: "up" })`), asked directly; throws unless 200. */
  api<T = unknown>(path: string, params: Record<string, string | number>): Promise<T>;
  /**
   * Stops the process (by its PID) and starts a new one on the same port and data directory, resolving
   * once it is ready: what a restart of Prometheus does to its rule evaluation (alerts' `activeAt`).
   */
  restart(): Promise<void>;
  /** Stops the process and deletes its data directory. */
  close(): Promise<void>;
}

export interface StartPrometheusOptions {
  /**
   * The OpenMetrics text to load instead of the default dataset (`openMetricsText()`): the text itself, or
   * a function returning it or an iterable of chunks (streamed to the file, for datasets too large to hold
   * as one string, e.g. `largeOpenMetricsChunks` from `./largeDataset.js`).
   */
  openMetrics?: string | (() => string | Iterable<string>);
  /** How long to wait for `/-/ready` after starting the process (default 30 s). */
  readyTimeoutMs?: number;
  /**
   * The `prometheus.yml` text, given the port Prometheus will listen on (so it can scrape itself). Default:
   * no scrape jobs. Relative paths in it (e.g. `rule_files`) are resolved next to it, where `files` go.
   */
  config?: (port: number) => string;
  /** Extra files written next to the config (name to content), e.g. rule files the config names. */
  files?: Record<string, string>;
  /** Extra command-line flags, e.g. `--rules.alert.resend-delay=1s`. */
  args?: readonly string[];
}

const run = promisify(execFile);
const READY_TIMEOUT_MS = 30_000;

/**
 * Loads the dataset (by default `openMetricsText()`) with `promtool tsdb create-blocks-from openmetrics`,
 * starts `prometheus` on 127.0.0.1 (free port, 100y retention; by default no scrape jobs) and resolves once
 * `/-/ready` answers 200.
 */
export async function startPrometheus(options: StartPrometheusOptions = {}): Promise<RunningPrometheus> {
  const {
    openMetrics = openMetricsText,
    readyTimeoutMs = READY_TIMEOUT_MS,
    config = () => "global:\n  scrape_interval: 1h\nscrape_configs: []\n",
    files = {},
    args = [],
  } = options;
  const dir = await mkdtemp(join(tmpdir(), "prom-test-"));
  try {
    const dataFile = join(dir, "data.om");
    const configFile = join(dir, "prometheus.yml");
    const tsdb = join(dir, "tsdb");
    // writeFile streams an iterable chunk by chunk; a string is written whole.
    await writeFile(dataFile, typeof openMetrics === "string" ? openMetrics : openMetrics());
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
    await run("promtool", ["tsdb", "create-blocks-from", "openmetrics", "--quiet", dataFile, tsdb], {
      maxBuffer: 16 * 1024 * 1024,
    });

    const launch = async (port: number) => {
      const child = spawn(
        "prometheus",
        [
          `--config.file=${configFile}`,
          `--storage.tsdb.path=${tsdb}`,
          "--storage.tsdb.retention.time=100y",
          `--web.listen-address=127.0.0.1:${port}`,
          "--log.level=warn",
          ...args,
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      try {
        await waitReady(`http://127.0.0.1:${port}`, child, readyTimeoutMs);
        await ensureOurs(`http://127.0.0.1:${port}`, child);
        return child;
      } catch (error) {
        await stop(child);
        throw error;
      }
    };
    for (let tries = 1; ; tries++) {
      const port = await freePort();
      // Written per attempt: the config may name the port (a self-scrape job).
      await writeFile(configFile, config(port));
      const url = `http://127.0.0.1:${port}`;
      let child: ChildProcess;
      try {
        child = await launch(port);
      } catch (error) {
        // Another process may have taken the port between freePort() and bind: try another one.
        if (tries < 3 && /address already in use|not our Prometheus/.test(String(error))) continue;
        throw error;
      }
      let closing: Promise<void> | undefined;
      return {
        url,
        api: (path, params) => apiData(url, path, params),
        async restart() {
          await stop(child);
          child = await launch(port);
        },
        close() {
          closing ??= stop(child).then(() => rm(dir, { recursive: true, force: true }));
          return closing;
        },
      };
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function apiData<T>(url: string, path: string, params: Record<string, string | number>): Promise<T> {
  const query = new URLSearchParams(Object.entries(params).map(([name, value]) => [name, String(value)]));
  const response = await fetch(`${url}/api/v1/${path}?${query}`);
  const body = (await response.json()) as { data: T };
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.data;
}

/**
 * Checks that the server ready at `url` is the Prometheus `child` started: another process that took
 * the port first answers `/-/ready` too (Alertmanager does), while `child` exits unable to bind.
 */
async function ensureOurs(url: string, child: ChildProcess): Promise<void> {
  const answer = await fetch(`${url}/api/v1/status/buildinfo`).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const running = child.exitCode === null && child.signalCode === null;
  if (answer?.status !== 200 || !running) {
    throw new Error(
      `not our Prometheus at ${url} (buildinfo ${answer?.status ?? "unanswered"}, ours running: ${running})`,
    );
  }
}

/**
 * Resolves once `<url>/-/ready` answers 200; throws (with the tail of its stderr) if `child` exits first or
 * the time runs out. `name` names the process in those errors.
 */
export async function waitReady(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  name = "prometheus",
): Promise<void> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}): ${stderr}`);
    }
    try {
      const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} was not ready within ${timeoutMs} ms: ${stderr}`);
}

/** Stops a child process by its PID (SIGTERM, SIGKILL after 5 s) and resolves once it has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
