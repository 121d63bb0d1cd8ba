import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";

// `npm start` (serverless offline start) run to its end, for the cases where it must end by itself (a
// port in use): what the test asserts (test/e2e/localStart.test.ts) and what the benchmark times
// (test/bench/figures/busyPort.ts).

/** How `serverless offline start` ended. */
export interface Ended {
  code: number | null;
  output: string;
  /** From the spawn to the end: for failure messages and the benchmark, never a test's assertion. */
  ms: number;
  /** Whether any process of the command's process group (an esbuild service, say) outlived it. */
  lingering: boolean;
}

/**
 * `serverless offline start --host 127.0.0.1 …args` in `root` with `env`, to its end; killed, and
 * failed, if it has not ended after `boundMs` (a generous bound: the wait's limit, not a target).
 */
export function offlineStartToEnd(
  root: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  boundMs: number,
): Promise<Ended> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(root, "node_modules", ".bin", "serverless"),
      ["offline", "start", "--host", "127.0.0.1", ...args],
      { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const pid = child.pid;
    const timer = setTimeout(() => {
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
      reject(
        new Error(`serverless offline start ${args.join(" ")} did not end within ${boundMs} ms:\n${output}`),
      );
    }, boundMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // "close": the process has exited and its output pipes are closed (no child holds them either).
    child.once("close", (code) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      resolve({ code, output, ms, lingering: pid !== undefined && killGroupIfAlive(pid) });
    });
  });
}

/** Whether the process group `pid` still has a process; if so it is killed. */
function killGroupIfAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false; // no such process group: nothing outlived the command
  }
  process.kill(-pid, "SIGKILL");
  return true;
}

/** A server holding a port on 127.0.0.1, as another program would. */
export async function occupy(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { port: address.port, server };
}

export function release(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
