import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Finished, runToEnd } from "../support/childProcess.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";

// Clients we did not write, against `serverless offline` (what `npm start` runs): the official MCP
// conformance suite and the MCP Inspector's CLI. Both need Node >= 22, taken from the npm registry.
export const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const NODE_22 = "node@22";
const BASELINE = fileURLToPath(new URL("./conformance-baseline.yml", import.meta.url));

/** The generic scenarios that must pass (the rest need the suite's fixtures: see the baseline). */
const REQUIRED = ["server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"];

function npx(args: string[], timeoutMs: number): Promise<Finished> {
  const env = { ...process.env, npm_config_loglevel: "error", npm_config_update_notifier: "false" };
  return runToEnd("npx", ["-y", "-p", NODE_22, ...args], { env, timeoutMs });
}

describe.skipIf(!prometheusAvailable())("real MCP clients against serverless offline", () => {
  let prometheus: RunningPrometheus;
  let offline: RunningOffline;
  let url: string;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    offline = await startOffline({
      PROMETHEUS_URL: prometheus.url,
      PROMETHEUS_AUTH: "none",
      LOG_LEVEL: "WARN",
    });
    url = `${offline.url}/mcp`;
  }, 120_000);

  afterAll(async () => {
    await offline?.close();
    await prometheus?.close();
  });

  it("passes the official conformance suite's generic scenarios (fixture scenarios baselined)", async () => {
    const run = await npx(
      ["-p", CONFORMANCE, "conformance", "server", "--url", url, "--expected-failures", BASELINE],
      600_000,
    );
    const summary = run.stdout.slice(run.stdout.indexOf("=== SUMMARY ==="));
    console.log(`conformance suite (${CONFORMANCE}) against ${url}\n${summary}`);
    for (const scenario of REQUIRED)
      expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    expect(summary).toMatch(/Total: \d+ passed, \d+ failed/);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  }, 600_000);

  it("the MCP Inspector CLI lists the tools and runs a query", async () => {
    const inspector = ["-p", INSPECTOR, "mcp-inspector", "--cli", url, "--transport", "http"];
    const listed = await npx([...inspector, "--method", "tools/list"], 600_000);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = JSON.parse(listed.stdout).tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toStrictEqual([
      "ExecuteQuery",
      "ExecuteRangeQuery",
      "ListMetrics",
      "GetServerInfo",
      "GetAvailableWorkspaces",
    ]);
    const args = ["--tool-name", "ExecuteQuery", "--tool-arg", "query=count(test_temperature_celsius)"];
    const called = await npx(
      [...inspector, "--method", "tools/call", ...args, "--tool-arg", `time=${DATASET.start + 900}`],
      300_000,
    );
    expect(called.code, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout) as {
      structuredContent: { resultType: string; result: { value: [number, string] }[] };
    };
    console.log(
      `MCP Inspector (${INSPECTOR}) tools/call ExecuteQuery → ${JSON.stringify(result.structuredContent)}`,
    );
    expect(result.structuredContent.resultType).toBe("vector");
    expect(result.structuredContent.result[0]?.value[0]).toBe(DATASET.start + 900);
  }, 900_000);
});
