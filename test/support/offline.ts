import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort } from "./net.js";

export interface OfflinePorts {
  httpPort: number;
  lambdaPort: number;
}

export interface RunningOffline {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Pass these to start another process on the same address (a restart). */
  ports: OfflinePorts;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  close(): Promise<void>;
}

/** This repository, found from this file; a bundled copy (the benchmarks) passes its own. */
const REPOSITORY = new URL("../..", import.meta.url).pathname;

/**
 * Starts the real `serverless offline` (what `npm start` runs, there on port 3000) of the service in
 * `root` on free loopback ports with the given environment (and more arguments, such as `--param=…`),
 * and waits until `GET /health` answers.
 */
export async function startOffline(
  env: Record<string, string> = {},
  ports?: OfflinePorts,
  timeoutMs = 90_000,
  root = REPOSITORY,
  args: readonly string[] = [],
): Promise<RunningOffline> {
  const { httpPort, lambdaPort } = ports ?? { httpPort: await freePort(), lambdaPort: await freePort() };
  const child: ChildProcess = spawn(
    join(root, "node_modules", ".bin", "serverless"),
    [
      "offline",
      "start",
      "--host",
      "127.0.0.1",
      "--httpPort",
      String(httpPort),
      "--lambdaPort",
      String(lambdaPort),
      ...args,
    ],
    {
      cwd: root,
      env: { ...process.env, ...env, SLS_TELEMETRY_DISABLED: "1", SLS_NOTIFICATIONS_MODE: "off" },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${httpPort}`;
  const close = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(-child.pid, "SIGTERM");
      const killed = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!killed) process.kill(-child.pid, "SIGKILL");
    }
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited early:\n${log}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) return { url, ports: { httpPort, lambdaPort }, output: () => log, close };
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  await close();
  throw new Error(`serverless offline did not answer /health within ${timeoutMs} ms:\n${log}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
