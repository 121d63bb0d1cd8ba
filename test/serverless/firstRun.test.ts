import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/net.js";
import { copyService, runSls, slsEnv } from "./sls.js";

// What a new user meets first: `npm start` on the port they choose (twice, side by side), and a bad
// setting stopping every command at once with the line naming the variable.

let service: { dir: string; dispose(): Promise<void> };

beforeAll(async () => {
  service = await copyService();
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** `npm start` in the service copy with `env`; its output is collected. */
function npmStart(env: Record<string, string>): Started {
  const child = spawn("npm", ["start", "--silent"], {
    cwd: service.dir,
    env: slsEnv(env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

function stop(started: Started): void {
  if (started.child.exitCode === null && started.child.pid !== undefined) {
    process.kill(-started.child.pid, "SIGKILL");
  }
}

/** Polls `url` until it answers 200 (or the process ends, or 90 s pass). */
async function healthy(url: string, started: Started): Promise<boolean> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && started.child.exitCode === null) {
    try {
      if ((await fetch(url)).status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** Waits for the process to exit; undefined if it is still running after `ms`. */
function exitWithin(started: Started, ms: number): Promise<number | null | undefined> {
  if (started.child.exitCode !== null) return Promise.resolve(started.child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    started.child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe("npm start: ports", () => {
  it("two servers with different PORTs serve /health at the same time, each on its own Lambda port", async () => {
    const [first, second] = [await freePort(), await freePort()];
    const servers = [npmStart({ PORT: String(first) }), npmStart({ PORT: String(second) })];
    try {
      const ready = await Promise.all(
        servers.map((server, i) => healthy(`http://127.0.0.1:${[first, second][i]}/health`, server)),
      );
      expect(ready, servers.map((server) => server.output()).join("\n---\n")).toEqual([true, true]);
      const lambdaPorts = servers.map(
        (server) => /Lambda invoke API on 127\.0\.0\.1:(\d+)/.exec(server.output())?.[1],
      );
      expect(lambdaPorts.every((port) => port !== undefined)).toBe(true);
      expect(lambdaPorts[0]).not.toBe(lambdaPorts[1]);
    } finally {
      servers.forEach(stop);
    }
  }, 120_000);
});

describe("a bad setting stops every command at once, naming the variable", () => {
  const LINE = 'Invalid configuration: SESSIONS="maybe" (expected one of optional, required, off)';
  /** How long a command is waited for: a generous bound on a busy machine, not how soon it stops. */
  const BOUND_MS = 120_000;

  it(
    "npm start",
    async () => {
      const started = npmStart({ SESSIONS: "maybe", PORT: String(await freePort()) });
      try {
        // It ends by itself (a server would run on): waited for with a generous bound, not timed.
        const code = await exitWithin(started, BOUND_MS);
        expect(code, started.output()).not.toBeUndefined();
        expect(code, started.output()).not.toBe(0);
        expect(started.output()).toContain(LINE);
        expect(started.output()).not.toContain("Server ready");
      } finally {
        stop(started);
      }
    },
    BOUND_MS + 60_000,
  );

  it(
    "serverless invoke local and serverless package",
    async () => {
      for (const args of [
        ["invoke", "local", "-f", "mcp", "-p", join("events", "v2-health.json")],
        ["package", "--package", join(service.dir, "bad-setting-package")],
      ]) {
        const run = await runSls(args, { cwd: service.dir, env: { SESSIONS: "maybe" }, timeoutMs: BOUND_MS });
        const said = `${args.join(" ")}: ${run.stdout}${run.stderr}`;
        // It ended by itself, not killed at the bound (generous, not a figure), and failed.
        expect(run.timedOut, said).toBe(false);
        expect(run.code, said).not.toBe(0);
        expect(`${run.stdout}${run.stderr}`).toContain(LINE);
      }
    },
    2 * BOUND_MS + 60_000,
  );
});
