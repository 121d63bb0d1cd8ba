import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort } from "../support/net.js";

export interface BenchOffline {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** Stops the process group (SIGTERM, then SIGKILL after 5 s). */
  close(): Promise<void>;
}

/**
 * The real `serverless offline` (what `npm start` runs) in the service at `root`, on free loopback
 * ports, waiting until `GET /health` answers. test/support/offline.ts does the same for the tests but
 * finds the service from its own file, which is wrong once the bench is bundled into .out/.
 */
export async function startOfflineAt(
  root: string,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<BenchOffline> {
  const httpPort = await freePort();
  const lambdaPort = await freePort();
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
    ],
    {
      cwd: root,
      env: { ...process.env, ...env, SLS_TELEMETRY_DISABLED: "1", SLS_NOTIFICATIONS_MODE: "off" },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  const keep = (chunk: Buffer) => {
    log = (log + chunk).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${httpPort}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(-child.pid, "SIGTERM");
      const stopped = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!stopped) process.kill(-child.pid, "SIGKILL");
    }
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited early:\n${log}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) return { url, output: () => log, close };
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
