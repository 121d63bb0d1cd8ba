import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyService, ROOT, runSls, slsEnv } from "../serverless/sls.js";
import { freePort } from "../support/net.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import { type Ended, occupy, offlineStartToEnd, release } from "../support/offlineExit.js";

// The start of `npm start` (serverless offline) and `serverless invoke local` (scripts/offline-start.cjs,
// scripts/check-settings.cjs): a port in use stops `npm start` at once with one line naming the port and
// the setting that moves it; a start prints the application's configuration warnings (computed from the
// shell, where a misspelled PROMETHEUS_ULR lives) and one line naming the Prometheus it queries and where
// sessions live.

/** Runs of each busy-port case: esbuild's goroutine dump, before the fix, came in some runs only. */
const RUNS = 3;
/** The longest a busy-port start is waited for before it counts as hanging. */
const EXIT_BOUND_MS = 120_000;
const WARN_AUTH = /^Warning: .*PROMETHEUS_URL=http:\/\/127\.0\.0\.1:9090.*PROMETHEUS_AUTH=none.*$/m;
const WARN_ULR =
  "Warning: PROMETHEUS_ULR is not a setting of this server and is ignored; did you mean PROMETHEUS_URL?";

/**
 * `serverless offline start …` in this repository, to its end. The bound is the wait's limit, generous
 * for a loaded machine: how soon it ends is the benchmark's figure (busy-port-exit), not this test's.
 */
function offlineStart(args: string[]): Promise<Ended> {
  // No application settings from the calling shell; PORT / LAMBDA_PORT unset (the flags say).
  return offlineStartToEnd(ROOT, args, slsEnv({ PORT: "", LAMBDA_PORT: "" }), EXIT_BOUND_MS);
}

/** How often `text` occurs in `output`. */
function occurrences(output: string, text: string): number {
  return output.split(text).length - 1;
}

describe("npm start with a port in use", () => {
  it.each([
    ["the HTTP port", "PORT (or --httpPort)", "httpPort"],
    ["the Lambda invoke port", "LAMBDA_PORT (or --lambdaPort)", "lambdaPort"],
  ] as const)(
    "%s: exits by itself with status 1, and one line naming the port and %s (every run)",
    async (_, setting, busyFlag) => {
      const { port: busy, server } = await occupy();
      try {
        for (let run = 1; run <= RUNS; run++) {
          const other = await freePort();
          const [httpPort, lambdaPort] = busyFlag === "httpPort" ? [busy, other] : [other, busy];
          const ended = await offlineStart([
            "--httpPort",
            String(httpPort),
            "--lambdaPort",
            String(lambdaPort),
          ]);
          const said = `run ${run}: exit ${ended.code} after ${ended.ms} ms:\n${ended.output}`;
          expect(ended.code, said).toBe(1);
          // The whole output, stdout and stderr: no route table, no stack, no goroutine dump.
          expect(ended.output.trim(), said).toBe(
            `Port ${busy} on 127.0.0.1 is in use: set ${setting} to another port.`,
          );
          expect(ended.lingering, said).toBe(false);
        }
      } finally {
        await release(server);
      }
    },
    RUNS * EXIT_BOUND_MS + 30_000,
  );

  it(
    "both ports: still one line, naming both settings",
    async () => {
      const [first, second] = [await occupy(), await occupy()];
      try {
        const ended = await offlineStart([
          "--httpPort",
          String(first.port),
          "--lambdaPort",
          String(second.port),
        ]);
        const said = `exit ${ended.code} after ${ended.ms} ms:\n${ended.output}`;
        expect(ended.code, said).toBe(1);
        expect(ended.output.trim(), said).toBe(
          `Port ${first.port} on 127.0.0.1 and port ${second.port} on 127.0.0.1 are in use: ` +
            "set PORT (or --httpPort) and LAMBDA_PORT (or --lambdaPort) to other ports.",
        );
      } finally {
        await Promise.all([release(first.server), release(second.server)]);
      }
    },
    EXIT_BOUND_MS + 30_000,
  );
});

describe("npm start's start lines", () => {
  let offline: RunningOffline | undefined;
  let said = "";

  beforeAll(async () => {
    offline = await startOffline({
      PROMETHEUS_URL: "http://127.0.0.1:9090",
      // Unset (empty means unset): the default, sigv4, for a URL that is not AMP's.
      PROMETHEUS_AUTH: "",
      PROMETHEUS_ULR: "http://127.0.0.1:9090",
      AWS_EC2_METADATA_DISABLED: "true",
    });
    // Everything it printed up to serving /health.
    said = offline.output();
  }, 120_000);

  afterAll(async () => {
    await offline?.close();
  });

  it("warns, once each: SigV4 for a URL that is not AMP's (PROMETHEUS_AUTH=none), and PROMETHEUS_ULR", () => {
    expect(said).toMatch(WARN_AUTH);
    expect(said.match(new RegExp(WARN_AUTH.source, "gm")), said).toHaveLength(1);
    expect(occurrences(said, WARN_ULR), said).toBe(1);
  });

  it("says once which Prometheus it queries, how, and where sessions live, after the warnings", () => {
    if (!offline) throw new Error("serverless offline did not start");
    const line = `Prometheus: http://127.0.0.1:9090, auth SigV4 (AMP); sessions: file ${offline.sessionDir}`;
    const lines = said.split("\n");
    expect(
      lines.filter((text) => text.startsWith("Prometheus: ")),
      said,
    ).toEqual([line]);
    expect(lines.indexOf(line)).toBeGreaterThan(lines.indexOf(WARN_ULR));
    expect(said.indexOf(line)).toBeLessThan(said.indexOf("Server ready"));
  });

  it("names the Lambda invoke port it took, once", () => {
    if (!offline) throw new Error("serverless offline did not start");
    const line = `serverless offline: Lambda invoke API on 127.0.0.1:${offline.ports.lambdaPort} (LAMBDA_PORT)`;
    expect(occurrences(said, "Lambda invoke API on "), said).toBe(1);
    expect(said).toContain(line);
  });
});

describe("npm start with frontDoor=streaming", () => {
  it("serves the REST API's routes with the buffered handler (offline runs no streaming handler)", async () => {
    const offline = await startOffline(
      { PROMETHEUS_URL: "http://127.0.0.1:9", PROMETHEUS_AUTH: "none", AWS_EC2_METADATA_DISABLED: "true" },
      undefined,
      90_000,
      undefined,
      ["--param=frontDoor=streaming"],
    );
    try {
      const ping = await fetch(`${offline.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(ping.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await ping.json()).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });
      // The REST API's own route for browsers' preflights, answered by the function.
      const preflight = await fetch(`${offline.url}/mcp`, {
        method: "OPTIONS",
        headers: { origin: "http://localhost:6274", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(offline.output()).toMatch(/OPTIONS\s*\|\s*http:\/\/127\.0\.0\.1:\d+\/mcp\b/);
    } finally {
      await offline.close();
    }
  }, 120_000);
});

describe("serverless invoke local's and package's start lines", () => {
  let service: { dir: string; dispose(): Promise<void> } | undefined;

  beforeAll(async () => {
    // A private copy: invoke local and package write build folders into the service directory.
    service = await copyService();
  }, 60_000);

  afterAll(async () => {
    await service?.dispose();
  });

  it("invoke local with PROMETHEUS_ULR in the shell prints the warning once, and still answers", async () => {
    if (!service) throw new Error("no service copy");
    const run = await runSls(["invoke", "local", "-f", "mcp", "-p", join("events", "v2-health.json")], {
      cwd: service.dir,
      env: { PROMETHEUS_ULR: "http://127.0.0.1:9090" },
      timeoutMs: 45_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(occurrences(run.stderr, WARN_ULR), output).toBe(1);
    expect(occurrences(run.stdout, WARN_ULR), output).toBe(0);
    expect(run.stdout).toContain('"statusCode": 200');
    // METRICS defaults to off locally: the request's log line carries no CloudWatch metrics document.
    expect(run.stdout).not.toContain('"_aws"');
  }, 60_000);

  it("invoke local keeps a new session in a file under .local/sessions of the service (the local default)", async () => {
    if (!service) throw new Error("no service copy");
    const run = await runSls(["invoke", "local", "-f", "mcp", "-p", join("events", "v2-initialize.json")], {
      cwd: service.dir,
      timeoutMs: 45_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.code, output).toBe(0);
    const sessionId = /"mcp-session-id": "([0-9a-f-]{36})"/i.exec(run.stdout)?.[1];
    expect(sessionId, output).toBeDefined();
    const file = join(service.dir, ".local", "sessions", `${sessionId}.json`);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ sessionId });
  }, 60_000);

  it("package with PROMETHEUS_ULR in the deploying shell prints the warning once", async () => {
    if (!service) throw new Error("no service copy");
    const run = await runSls(["package", "--package", join(service.dir, "warned-package")], {
      cwd: service.dir,
      env: { PROMETHEUS_ULR: "http://127.0.0.1:9090" },
      timeoutMs: 50_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(occurrences(output, WARN_ULR), output).toBe(1);
    // The Prometheus line is npm start's alone.
    expect(output).not.toContain("Prometheus: ");
  }, 60_000);
});
