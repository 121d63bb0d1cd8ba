import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tools } from "../../tools/index.js";
import { bundleAsShipped, loadedStatically } from "../support/bundle.js";
import { runToEnd } from "../support/childProcess.js";
import { makeHandler, postMcp } from "../support/handler.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";

// Issue 39: a cold start (Lambda's init, then initialize or tools/list) loads the tools' definitions
// only; each tool's body (tools/run/) and what only the bodies use load on the tool's first call
// (tools/lazyRun.ts). Checked on the function as shipped: what its entry imports statically (ESM
// `import`, which the init phase loads) against what it imports with `import()`.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRY = "src/lambda/handler.ts";

/**
 * The result-shaping modules the server itself uses before any tool runs: the configuration's default
 * result size (inlineSize), each call's budget (budget), and the values of the `order` argument every
 * query tool declares (ranking). Measuring and cutting a result (fit, tokens) loads with the first call.
 */
const RESULTS_AT_INIT = new Set([
  "src/results/inlineSize.ts",
  "src/results/budget.ts",
  "src/results/ranking.ts",
]);

/** The sources of the outputs the entry loads statically. */
function sourcesLoadedAtInit(metafile: Metafile): string[] {
  return loadedStatically(metafile, ENTRY).flatMap((name) =>
    Object.keys(metafile.outputs[name]?.inputs ?? {}),
  );
}

/** Every source in any output: what the function can load, at init or later. */
function sourcesBundled(metafile: Metafile): Set<string> {
  return new Set(Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs)));
}

/** One call of each tool, with the arguments it needs, over the test dataset. */
const CALLS: Record<string, Record<string, unknown>> = {
  ExecuteQuery: { query: "test_requests_total", time: "now" },
  ExecuteRangeQuery: { query: "test_requests_total", start: "now-1h", end: "now", step: "60s" },
  ListMetrics: {},
  GetServerInfo: {},
  GetAvailableWorkspaces: {},
  ListLabels: {},
  ListLabelValues: { label: "job" },
  FindSeries: { match: "test_requests_total", start: "now-1h", end: "now" },
  GetMetricMetadata: {},
  GetHealthOverview: {},
  ListAlerts: {},
  ListRules: {},
  ListSilences: {},
  GetAlertHistory: {},
  PlotRangeQuery: { query: "test_temperature_celsius", start: "now-1h", end: "now", step: "60s" },
};

/** The end of the test dataset's hour: `now-1h` to `now` holds every sample. */
const FIXED_NOW = new Date(DATASET.end * 1000).toISOString();

function toolsCall(name: string, id: number): unknown {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: CALLS[name] } };
}

describe.skipIf(!prometheusAvailable())(
  "the function as shipped: the tools' bodies load on their first call",
  () => {
    let dir: string;
    let metafile: Metafile;
    let prometheus: RunningPrometheus;
    let env: Record<string, string>;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "pml-lazy-"));
      metafile = await bundleAsShipped(ROOT, join(dir, "function"), { entryPoints: { handler: ENTRY } });
      // A real Prometheus with the test dataset; BACKENDS (one, a plain Prometheus): every tool is
      // served, GetAvailableWorkspaces listing it.
      prometheus = await startPrometheus();
      env = { BACKENDS: JSON.stringify({ lab: { url: prometheus.url } }), AWS_REGION: "us-east-1" };
    }, 60_000);

    afterAll(async () => {
      await prometheus?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("loads no tool body, no PromQL module and no result shaping but the server's own at init", () => {
      const atInit = sourcesLoadedAtInit(metafile);
      expect(atInit).toContain("tools/index.ts");
      expect(atInit.filter((source) => source.startsWith("tools/run/"))).toEqual([]);
      expect(atInit.filter((source) => source.startsWith("src/promql/"))).toEqual([]);
      expect(
        atInit.filter((source) => source.startsWith("src/results/") && !RESULTS_AT_INIT.has(source)),
      ).toEqual([]);
      // The bodies are in the function still, in chunks imported on first use.
      const bundled = sourcesBundled(metafile);
      const bodies = [...bundled].filter((source) => source.startsWith("tools/run/"));
      expect(bodies).toHaveLength(tools.length);
      expect(bundled).toContain("src/results/queryResult.ts");
    });

    it("loads the file and DynamoDB session stores on first use, not at init", () => {
      // src/sessions/lazyStore.ts: the file store serves local runs only, and each brings modules (the
      // file store Node's fs/promises too) a Lambda's init need not compile.
      const atInit = sourcesLoadedAtInit(metafile);
      expect(atInit).toContain("src/sessions/lazyStore.ts");
      for (const store of ["src/sessions/fileStore.ts", "src/sessions/dynamoStore.ts"]) {
        expect(atInit).not.toContain(store);
        expect(sourcesBundled(metafile)).toContain(store);
      }
    });

    it("answers a call of each tool as the sources do", async () => {
      expect(Object.keys(CALLS).sort()).toEqual(tools.map((tool) => tool.name).sort());
      const names = Object.keys(CALLS);
      const handlerUrl = pathToFileURL(join(dir, "function", "handler.mjs")).href;
      // The same clock in the bundle's process and here, so that answers naming `now` are the same.
      const script = `Date.now = () => Date.parse(${JSON.stringify(FIXED_NOW)});
      const { handler } = await import(${JSON.stringify(handlerUrl)});
      const bodies = [];
      for (const request of ${JSON.stringify(names.map(toolsCall))}) {
        const event = { version: "2.0", rawPath: "/mcp", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          requestContext: { http: { method: "POST", path: "/mcp", sourceIp: "127.0.0.1" }, requestId: "r", timeEpoch: Date.now() },
          body: JSON.stringify(request), isBase64Encoded: false };
        const reply = await handler(event, { awsRequestId: "r", getRemainingTimeInMillis: () => 29000 });
        bodies.push(JSON.parse(reply.body));
      }
      process.stdout.write(JSON.stringify(bodies));`;
      const run = await runToEnd(process.execPath, ["--input-type=module", "-e", script], {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          AWS_EC2_METADATA_DISABLED: "true",
          LOG_LEVEL: "SILENT",
          METRICS: "off",
          ...env,
        },
        timeoutMs: 30_000,
      });
      expect(run.code, run.stderr).toBe(0);
      const fromBundle = JSON.parse(run.stdout) as Array<{ result?: { content?: Array<{ text?: string }> } }>;

      const realNow = Date.now;
      Date.now = () => Date.parse(FIXED_NOW);
      const fromSources: unknown[] = [];
      try {
        const handler = makeHandler(env);
        for (const [i, name] of names.entries())
          fromSources.push(JSON.parse((await postMcp(handler, toolsCall(name, i))).body));
      } finally {
        Date.now = realNow;
      }
      for (const [i, name] of names.entries()) {
        // A body that failed to load would answer as any fault: "internal error".
        expect(JSON.stringify(fromBundle[i]), name).not.toContain("internal error");
        expect(fromBundle[i], name).toHaveProperty("result");
        expect(fromBundle[i], name).toEqual(fromSources[i]);
      }
      // The queries read the dataset: their answers carry its series, not only a note that none matched.
      for (const name of ["ExecuteQuery", "ExecuteRangeQuery", "FindSeries"]) {
        expect(JSON.stringify(fromBundle[names.indexOf(name)]), name).toContain("test_requests_total");
        expect(JSON.stringify(fromBundle[names.indexOf(name)]), name).toMatch(/instance\W+a\W/);
      }
    }, 60_000);
  },
);
