import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { type Finished, runToEnd } from "../support/childProcess.js";
import { type RunningOffline, startOffline } from "../support/offline.js";
import {
  DATASET,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";
import { CORE_TOOLS, PLAIN_TOOL_INTERFACE, TOOL_INTERFACE } from "../support/toolInterface.js";

// Clients we did not write, against `serverless offline` (what `npm start` runs): the official MCP
// conformance suite and the MCP Inspector's CLI. Both need Node >= 22, taken from the npm registry.
export const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
/** The release whose requirement set for protocol revision 2026-07-28 (stateless) we run. */
export const CONFORMANCE_MODERN = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const NODE_22 = "node@22";
const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));
/** An AMP workspace URL: tools/list needs no call to it. */
const AMP_WORKSPACE_URL = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-12345678-abcd/";
const BASELINE = fileURLToPath(new URL("./conformance-baseline.yml", import.meta.url));
const BASELINE_2026 = fileURLToPath(new URL("./conformance-2026-baseline.yml", import.meta.url));

/** The generic scenarios that must pass (the rest need the suite's fixtures: see the baseline). */
const REQUIRED = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "dns-rebinding-protection",
  "resources-list",
];

/**
 * The generic scenarios of the 2026-07-28 set: no FAILURE in any. The input-required ones may carry
 * a WARNING their baseline entry names (a fixture we lack).
 */
const REQUIRED_2026 = [
  "tools-list",
  "http-header-validation",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "sep-2164-resource-not-found",
  "input-required-result-unsupported-methods",
  "input-required-result-validate-input",
  "input-required-result-missing-input-response",
  "input-required-result-ignore-extra-params",
  "resources-list",
];
/** Of those, the ones whose every check must succeed, not one WARNING. */
const SPOTLESS_2026 = [
  "tools-list",
  "http-header-validation",
  "dns-rebinding-protection",
  "input-required-result-unsupported-methods",
  "input-required-result-validate-input",
  "sep-2164-resource-not-found",
  "resources-list",
];
/**
 * server-stateless is baselined for the four checks that call the suite's diagnostic tools; these,
 * its generic checks, must each have run and succeeded.
 */
const STATELESS_CHECKS = [
  "sep-2575-request-meta-invalid-missing-meta",
  "sep-2575-request-meta-invalid-missing-protocol-version",
  "sep-2575-request-meta-invalid-missing-client-capabilities",
  "sep-2575-http-server-meta-invalid-400",
  "sep-2575-request-meta-client-info-optional",
  "sep-2575-server-implements-discover",
  "sep-2575-server-identifies-in-result-meta",
  "sep-2575-server-declares-prompts-in-discover",
  "sep-2575-discover-capabilities-match-handlers",
  "sep-2575-server-unsupported-version-error",
  "sep-2575-http-server-unsupported-version-400",
  "sep-2575-http-server-header-mismatch-400",
  "sep-2575-http-server-method-not-found-404",
  "sep-2575-http-server-method-not-found-404-initialize",
  "sep-2575-http-server-method-not-found-404-ping",
  "sep-2575-http-server-method-not-found-404-logging-setlevel",
  "sep-2575-http-server-method-not-found-404-resources-subscribe",
  "sep-2575-http-server-method-not-found-404-resources-unsubscribe",
  "sep-2575-http-server-error-jsonrpc-id",
];

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

/** The checks.json of every scenario in a `--output-dir` (`server-<scenario>-<timestamp>/`), by scenario. */
async function readChecks(dir: string): Promise<Map<string, Check[]>> {
  const checks = new Map<string, Check[]>();
  for (const entry of await readdir(dir)) {
    const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    checks.set(scenario, JSON.parse(await readFile(join(dir, entry, "checks.json"), "utf8")) as Check[]);
  }
  return checks;
}

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
    console.log(`conformance suite (${CONFORMANCE}) against ${url}: ${reported(summary)}`);
    for (const scenario of REQUIRED)
      expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    expect(summary).toMatch(/Total: \d+ passed, \d+ failed/);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  }, 600_000);

  it("passes the conformance suite's 2026-07-28 requirements, generic checks included (fixtures baselined)", async () => {
    const output = await mkdtemp(join(tmpdir(), "conformance-2026-"));
    try {
      const run = await npx(
        [
          "-p",
          CONFORMANCE_MODERN,
          "conformance",
          "server",
          "--url",
          url,
          "--requirements",
          "2026-07-28",
          "--expected-failures",
          BASELINE_2026,
          "-o",
          output,
        ],
        600_000,
      );
      const summary = run.stdout.slice(run.stdout.indexOf("=== SUMMARY ==="));
      console.log(
        `conformance suite (${CONFORMANCE_MODERN}, requirements 2026-07-28) against ${url}: ${reported(summary)}`,
      );
      for (const scenario of REQUIRED_2026)
        expect(summary).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));

      const checks = await readChecks(output);
      const statuses = (scenario: string, id?: string) =>
        (checks.get(scenario) ?? [])
          .filter((check) => id === undefined || check.id === id)
          .map(
            (check) => `${check.id}: ${check.status}${check.errorMessage ? ` (${check.errorMessage})` : ""}`,
          );
      for (const scenario of SPOTLESS_2026) {
        const all = statuses(scenario);
        expect(all.length, scenario).toBeGreaterThan(0);
        expect(
          all.filter((line) => !line.includes(": SUCCESS")),
          scenario,
        ).toStrictEqual([]);
      }
      for (const [scenario, id] of [
        ...STATELESS_CHECKS.map((check) => ["server-stateless", check] as const),
        ["caching", "sep-2549-tools-list-caching-hints"] as const,
        ["caching", "sep-2549-resources-list-caching-hints"] as const,
        ["caching", "sep-2549-resources-templates-list-caching-hints"] as const,
        ["caching", "sep-2549-ttl-non-negative"] as const,
        ["caching", "sep-2549-cache-scope-valid"] as const,
      ]) {
        const found = statuses(scenario, id);
        expect(found.length, `${scenario} ${id}`).toBeGreaterThan(0);
        for (const line of found) expect(line).toBe(`${id}: SUCCESS`);
      }
      expect(summary).toMatch(/Baseline check passed/);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    } finally {
      await rm(output, { recursive: true, force: true });
    }
  }, 600_000);

  it("the MCP Inspector CLI lists the tools, runs a query and finds labels", async () => {
    const inspector = ["-p", INSPECTOR, "mcp-inspector", "--cli", url, "--transport", "http"];
    const listed = await npx([...inspector, "--method", "tools/list"], 600_000);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = JSON.parse(listed.stdout).tools as { name: string }[];
    // A plain Prometheus: no GetAvailableWorkspaces.
    expect(tools.map((tool) => tool.name)).toStrictEqual(Object.keys(PLAIN_TOOL_INTERFACE));
    const labelled = await npx(
      [
        ...inspector,
        "--method",
        "tools/call",
        "--tool-name",
        "ListLabelValues",
        "--tool-arg",
        "label=job",
        "--tool-arg",
        "match=test_requests_total",
      ],
      300_000,
    );
    expect(labelled.code, labelled.stderr).toBe(0);
    expect(JSON.parse(labelled.stdout).structuredContent).toStrictEqual({ label: "job", values: ["api"] });
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

  it("the MCP Inspector's --strict schema check finds nothing, with a plain Prometheus, AMP and PYTHON_COMPAT", async () => {
    const strict = ["-p", INSPECTOR, "mcp-inspector", "--cli", "--method", "tools/list", "--strict"];
    // The stdio entry serves the same tools/list as the function: AMP's and the Python layout's, there.
    const stdio = (env: Record<string, string>) => [
      ...Object.entries({ AWS_EC2_METADATA_DISABLED: "true", ...env }).flatMap(([name, value]) => [
        "-e",
        `${name}=${value}`,
      ]),
      "--",
      process.execPath,
      join(REPOSITORY, packageJson.bin["prometheus-mcp-stdio"]),
    ];
    const runs: [string, string[], string[]][] = [
      ["plain Prometheus (HTTP)", [url, "--transport", "http"], Object.keys(PLAIN_TOOL_INTERFACE)],
      ["AMP (stdio)", stdio({ PROMETHEUS_URL: AMP_WORKSPACE_URL }), Object.keys(TOOL_INTERFACE)],
      [
        "PYTHON_COMPAT (stdio)",
        stdio({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none", PYTHON_COMPAT: "true" }),
        CORE_TOOLS,
      ],
    ];
    for (const [mode, target, names] of runs) {
      const listed = await npx([...strict, ...target], 600_000);
      const output = `${mode}:\n${listed.stderr}`;
      expect(listed.code, output).toBe(0);
      // Without findings the Inspector prints neither a finding nor its one-line count.
      expect(listed.stderr, output).not.toMatch(/Warning: tool|Error: tool|Schema portability/);
      const tools = JSON.parse(listed.stdout).tools as { name: string }[];
      expect(
        tools.map((tool) => tool.name),
        mode,
      ).toStrictEqual(names);
    }
  }, 900_000);
});

/**
 * The suite's summary for the CI log: one line when every failure was one the baseline expects (the
 * scenarios that need the suite's own fixture tools), the whole summary when anything else failed.
 */
function reported(summary: string): string {
  const total = /Total: (\d+) passed, (\d+) failed/.exec(summary);
  if (total === null || !summary.includes("Baseline check passed")) return `\n${summary}`;
  const expected = [...summary.matchAll(/^\s+~ (\S+)$/gm)].map(([, name]) => name);
  return (
    `${total[1]} passed; ${total[2]} failed, every one expected by the baseline ` +
    `(${expected.length} fixture scenarios: ${expected.join(", ")})`
  );
}
