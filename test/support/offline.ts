import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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
  /**
   * The server's SESSION_DIR (its file session store): the caller's, else a fresh temporary directory
   * (removed when the test process exits, or by a later test process). Pass it as SESSION_DIR to a
   * restart to keep its sessions.
   */
  sessionDir: string;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  close(): Promise<void>;
}

/** This repository, found from this file; a bundled copy (the benchmarks) passes its own. */
const REPOSITORY = new URL("../..", import.meta.url).pathname;

/** The temporary session directories made here, removed when this process exits. */
const madeSessionDirs = new Set<string>();
const SESSION_DIR_PREFIX = "pml-sessions-";

/**
 * Removes the session directories of test processes that are gone: a test runner's workers may end
 * without an `exit` event (killed at teardown), which leaves theirs behind.
 */
function sweepSessionDirs(): void {
  const parent = tmpdir();
  for (const name of readdirSync(parent)) {
    const pid = Number(new RegExp(`^${SESSION_DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") {
        rmSync(join(parent, name), { recursive: true, force: true });
      }
    }
  }
}

/** A fresh, empty directory for one server's sessions (never the repository's .local/sessions). */
function freshSessionDir(): string {
  if (madeSessionDirs.size === 0) {
    sweepSessionDirs();
    process.once("exit", () => {
      for (const dir of madeSessionDirs) rmSync(dir, { recursive: true, force: true });
    });
  }
  const dir = mkdtempSync(join(tmpdir(), `${SESSION_DIR_PREFIX}${process.pid}-`));
  madeSessionDirs.add(dir);
  return dir;
}

/**
 * Starts the real `serverless offline` (what `npm start` runs, there on port 3000) of the service in
 * `root` on free loopback ports with the given environment (and more arguments, such as `--param=…`),
 * and waits until `GET /health` answers. Sessions go to a fresh temporary SESSION_DIR unless `env`
 * names one (`sessionDir` of the result).
 */
export async function startOffline(
  env: Record<string, string> = {},
  ports?: OfflinePorts,
  timeoutMs = 90_000,
  root = REPOSITORY,
  args: readonly string[] = [],
): Promise<RunningOffline> {
  const { httpPort, lambdaPort } = ports ?? { httpPort: await freePort(), lambdaPort: await freePort() };
  const sessionDir = env.SESSION_DIR ?? freshSessionDir();
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
      env: {
        ...process.env,
        ...env,
        SESSION_DIR: sessionDir,
        SLS_TELEMETRY_DISABLED: "1",
        SLS_NOTIFICATIONS_MODE: "off",
      },
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
      if (response.status === 200) {
        return { url, ports: { httpPort, lambdaPort }, sessionDir, output: () => log, close };
      }
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
