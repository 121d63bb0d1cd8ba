import { spawn } from "node:child_process";
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { APP_SETTINGS } from "../support/configVariables.js";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** osls' own entry point: `node <it>` is `npx serverless` without npx's start-up cost. */
const SLS_BIN = join(ROOT, "node_modules", "serverless", "bin", "serverless.js");

/**
 * The environment for osls: offline (fake credentials, no instance metadata), none of the application
 * settings of the calling shell (so serverless.yml's defaults apply), then `extra`.
 */
export function slsEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of APP_SETTINGS) delete env[name];
  delete env.AWS_PROFILE;
  delete env.AWS_SESSION_TOKEN;
  return {
    ...env,
    AWS_ACCESS_KEY_ID: "AKIDTESTFAKE",
    AWS_SECRET_ACCESS_KEY: "test-secret-not-real",
    AWS_EC2_METADATA_DISABLED: "true",
    SLS_TELEMETRY_DISABLED: "1",
    SLS_NOTIFICATIONS_MODE: "off",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    ...extra,
  };
}

export interface SlsRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Killed at `timeoutMs`, still running: it did not end by itself (or after reporting an error). */
  timedOut: boolean;
}

/** Runs `serverless <args>` in `cwd` and collects its output. */
export function runSls(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<SlsRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SLS_BIN, ...args], {
      cwd: options.cwd,
      env: slsEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let reported: NodeJS.Timeout | undefined;
    const watch = () => {
      // osls has reported an error (its footer names the environment). After a failure to load the
      // handler, invoke local never exits on its own (serverless-esbuild's esbuild context stays open).
      if (reported === undefined && /Environment: .*osls/.test(stdout + stderr)) {
        reported = setTimeout(() => child.kill("SIGKILL"), 3_000);
      }
    };
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      watch();
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      watch();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 120_000);
    const settle = () => {
      clearTimeout(timer);
      clearTimeout(reported);
    };
    child.once("error", (error) => {
      settle();
      reject(error);
    });
    child.once("close", (code, signal) => {
      settle();
      resolve({ code: code ?? (signal ? 128 : null), stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

const NOT_COPIED = new Set([".git", "node_modules", ".serverless", ".esbuild", "coverage", ".tmp", "dist"]);

/**
 * A private copy of the service (node_modules linked, not copied). osls and serverless-esbuild write
 * build folders in the service directory and `package` deletes them afterwards, so runs that share
 * the working tree (other test files, `npm start`) would race.
 */
export async function copyService(): Promise<{ dir: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "pml-sls-"));
  await cp(ROOT, dir, {
    recursive: true,
    filter: (source) => source === ROOT || !NOT_COPIED.has(basename(source)),
  });
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `work` over `items` with at most `limit` running at once. */
export async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, slot: number) => Promise<void>,
) {
  let next = 0;
  const runner = async (slot: number) => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item, slot);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, (_, slot) => runner(slot)),
  );
}
