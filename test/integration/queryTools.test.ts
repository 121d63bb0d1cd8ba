import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rounded } from "../../src/results/numbers.js";
import { ExecuteQuery, ExecuteRangeQuery, GetServerInfo, ListMetrics } from "../../tools/index.js";
import { ToolError } from "../../tools/types.js";
import { type AmpStack, startAmpStack } from "../support/ampStack.js";
import {
  type QueryData,
  roundedSamples,
  type Sample,
  type SeriesTableValue,
  vectorTableSamples,
} from "../support/cutResults.js";
import type { FakeAmp } from "../support/fakeAmp.js";
import { refusedUrl } from "../support/net.js";
import {
  AWKWARD_INSTANCE,
  DATASET,
  METRIC_NAMES,
  prometheusAvailable,
  type RunningPrometheus,
  SERIES,
  sampleIndexAt,
} from "../support/prometheus.js";
import { queryPoints } from "../support/queryPoints.js";
import { type SigV4Proxy, startSigV4Proxy } from "../support/sigv4Proxy.js";
import { callTool, makeToolCall, toolError } from "../support/toolCall.js";

const REGION = "us-west-2";
const WS = "ws-11111111-aaaa-bbbb-cccc-000000000001";
const WS_OTHER = "ws-22222222-aaaa-bbbb-cccc-000000000002";
const WS_WARM = "ws-33333333-aaaa-bbbb-cccc-000000000003";
const { start, end } = DATASET;

const expectedValue = (name: string, instance: string, t: number) => {
  const series = SERIES.find(
    (s) => s.name === name && "instance" in s.labels && s.labels.instance === instance,
  );
  return String(series?.value(sampleIndexAt(t)));
};

describe.skipIf(!prometheusAvailable())(
  "query tools against a real Prometheus behind a SigV4-verifying proxy",
  () => {
    let prometheus: RunningPrometheus;
    let proxy: SigV4Proxy;
    let amp: FakeAmp;
    let stack: AmpStack;

    beforeAll(async () => {
      stack = await startAmpStack(
        REGION,
        [WS, WS_OTHER, WS_WARM].map((workspaceId) => ({ workspaceId, status: "ACTIVE" })),
      );
      ({ prometheus, proxy, amp } = stack);
    });

    afterAll(async () => {
      await stack?.close();
    });

    beforeEach(() => {
      proxy.reset();
      amp.resetCalls();
    });

    /** PROMETHEUS_URL names the proxy laid out as AMP workspace WS. */
    const configured = (overrides = {}) =>
      makeToolCall({
        prometheusUrl: proxy.workspaceUrl(WS),
        defaultRegion: REGION,
        ampEndpoint: amp.url,
        ...overrides,
      });

    describe("ExecuteQuery", () => {
      it("returns Prometheus's vector for an instant query at a Unix time, exactly", async () => {
        const result = await callTool(
          ExecuteQuery,
          { query: "test_requests_total", time: String(end) },
          configured(),
        );
        const samples: Sample[] = [
          {
            metric: { __name__: "test_requests_total", instance: "a", job: "api" },
            value: [end, expectedValue("test_requests_total", "a", end)],
          },
          {
            metric: { __name__: "test_requests_total", instance: "b", job: "api" },
            value: [end, expectedValue("test_requests_total", "b", end)],
          },
        ];
        const { series_stats: table, ...rest } = result as QueryData & { series_stats: SeriesTableValue };
        expect(rest).toEqual({ resultType: "vector", result: samples });
        // Two series: their table follows, a row for each.
        expect(vectorTableSamples(table)).toEqual(roundedSamples(samples));
        expect(expectedValue("test_requests_total", "a", end)).toBe("2400");
        expect(proxy.requests.map((r) => r.accepted)).toEqual([true]);
      });

      it("accepts RFC 3339 and fractional Unix times", async () => {
        // 2023-11-14T22:14:05Z is start + 45 s: sample 3, temperature 20 + 3 * 0.5.
        const rfc = await callTool(
          ExecuteQuery,
          { query: "test_temperature_celsius", time: "2023-11-14T22:14:05Z" },
          configured(),
        );
        expect(rfc).toMatchObject({ resultType: "vector", result: [{ value: [start + 45, "21.5"] }] });
        const fractional = await callTool(
          ExecuteQuery,
          { query: "test_temperature_celsius", time: `${start + 15}.5` },
          configured(),
        );
        expect(fractional).toMatchObject({ result: [{ value: [start + 15.5, "20.5"] }] });
      });

      it("computes a rate over the deterministic counters", async () => {
        const result = (await callTool(
          ExecuteQuery,
          { query: "sum(rate(test_requests_total[5m]))", time: String(end) },
          configured(),
        )) as { result: [{ value: [number, string] }] };
        // Counters grow 10 and 4 per 15 s sample.
        expect(Number(result.result[0].value[1])).toBe(rounded(14 / 15));
      });

      it("omits time when not given (Prometheus evaluates at now: the 2023 data is out of the lookback window)", async () => {
        const result = await callTool(
          ExecuteQuery,
          { query: "test_requests_total", time: null },
          configured(),
        );
        expect(result).toEqual({ resultType: "vector", result: [] });
        expect(proxy.requests[0]?.rawUrl).not.toContain("time=");
      });

      it("signs exactly the bytes sent: a query with spaces, quotes, +, /, ?, &, =, !'()* passes the proxy", async () => {
        const query = `probe_success{instance="${AWKWARD_INSTANCE}"}`;
        const result = await callTool(ExecuteQuery, { query, time: String(end) }, configured());
        expect(result).toEqual({
          resultType: "vector",
          result: [{ metric: { __name__: "probe_success", instance: AWKWARD_INSTANCE }, value: [end, "1"] }],
        });
        const sent = proxy.requests[0]?.rawUrl ?? "";
        expect(sent).toContain("%20");
        expect(sent).toContain("%2B");
        expect(sent).toContain("%282%29%2A%27%21%27");
        expect(sent).not.toMatch(/\+/);
        expect(proxy.lastRejection).toBeUndefined();
      });

      it("surfaces a PromQL syntax error with Prometheus's errorType and text", async () => {
        const error = await toolError(ExecuteQuery, { query: "sum(rate(x[5m]" }, configured());
        expect(error).toBeInstanceOf(ToolError);
        expect(error.message).toMatch(
          /^Prometheus rejected the query \(HTTP 400\) bad_data: invalid parameter "query": .*parse error/,
        );
        expect(proxy.requests).toHaveLength(1);
      });

      it("talks to a plain Prometheus without signing when auth is none", async () => {
        const result = await callTool(
          ExecuteQuery,
          { query: "count(test_requests_total)", time: String(end) },
          makeToolCall({ prometheusUrl: prometheus.url, prometheusAuth: "none" }),
        );
        expect(result).toMatchObject({ resultType: "vector", result: [{ value: [end, "2"] }] });
      });
    });

    describe("ExecuteRangeQuery", () => {
      it("returns the matrix exactly", async () => {
        const result = await callTool(
          ExecuteRangeQuery,
          { query: "sum(test_requests_total)", start: String(start), end: String(start + 60), step: "15s" },
          configured(),
        );
        expect(result).toMatchObject({ resultType: "matrix" });
        expect(queryPoints(result)).toEqual([
          { metric: {}, points: [0, 1, 2, 3, 4].map((i) => [start + 15 * i, 14 * i]) },
        ]);
      });

      it("accepts RFC 3339 bounds and resolves an explicit workspace_id", async () => {
        const matrix = await callTool(
          ExecuteRangeQuery,
          {
            workspace_id: WS,
            query: 'test_requests_total{instance="a"}',
            start: "2023-11-14T22:13:20Z",
            end: "2023-11-14T23:13:20Z",
            step: "30m",
          },
          configured({ prometheusUrl: undefined }),
        );
        expect(matrix).toMatchObject({ resultType: "matrix" });
        expect(queryPoints(matrix)).toEqual([
          {
            metric: { __name__: "test_requests_total", instance: "a", job: "api" },
            points: [
              [start, 0],
              [start + 1800, 1200],
              [start + 3600, 2400],
            ],
          },
        ]);
        expect(proxy.requests).toHaveLength(1);
      });

      it("accepts a compound duration step", async () => {
        const result = await callTool(
          ExecuteRangeQuery,
          { query: "max(test_temperature_celsius)", start: String(start), end: String(end), step: "1h30m" },
          configured(),
        );
        expect(queryPoints(result)).toEqual([{ metric: {}, points: [[start, 20]] }]);
      });
    });

    describe("ListMetrics", () => {
      it("lists the dataset's metric names sorted", async () => {
        expect(await callTool(ListMetrics, {}, configured())).toEqual({ metrics: [...METRIC_NAMES] });
        expect(proxy.requests.map((r) => r.rawUrl)).toEqual([
          `/workspaces/${WS}/api/v1/label/__name__/values`,
        ]);
      });
    });

    describe("GetServerInfo", () => {
      it("reports the configured URL without /api/v1 and the defaults, with no HTTP call", async () => {
        const info = await callTool(GetServerInfo, {}, configured());
        expect(info).toEqual({
          prometheus_url: `${proxy.url}/workspaces/${WS}`,
          aws_region: REGION,
          aws_profile: "default",
          service_name: "aps",
          auth_mode: "sigv4",
          backend_kind: "amp",
          server_time: expect.any(String),
          result_budget_bytes: 1_000_000,
          result_budget_tokens: 20_000,
        });
        expect(Object.keys(info as object)).toEqual([
          "prometheus_url",
          "aws_region",
          "aws_profile",
          "service_name",
          "auth_mode",
          "backend_kind",
          "server_time",
          "result_budget_bytes",
          "result_budget_tokens",
        ]);
        expect(proxy.requests).toHaveLength(0);
      });

      it("resolves a workspace_id through DescribeWorkspace", async () => {
        const info = await callTool(
          GetServerInfo,
          { workspace_id: WS_OTHER, region: REGION },
          configured({ allowedWorkspaces: [WS_OTHER] }),
        );
        expect(info).toMatchObject({
          prometheus_url: `${proxy.url}/workspaces/${WS_OTHER}`,
          aws_region: REGION,
        });
        expect(amp.calls.DescribeWorkspace).toBe(1);
      });

      it("never shows the user:password of PROMETHEUS_URL, which goes to a plain Prometheus as basic auth", async () => {
        const url = new URL(prometheus.url);
        url.username = "admin";
        url.password = "hunter2";
        const call = makeToolCall({ prometheusUrl: url.href, prometheusAuth: "none" });
        const info = await callTool(GetServerInfo, {}, call);
        expect(info).toMatchObject({ prometheus_url: prometheus.url.replace(/\/$/, "") });
        expect(JSON.stringify(info)).not.toContain("hunter2");
        expect(
          await callTool(ExecuteQuery, { query: "count(test_requests_total)", time: String(end) }, call),
        ).toMatchObject({ result: [{ value: [end, "2"] }] });
        const error = await toolError(ExecuteQuery, { query: "sum(" }, call);
        expect(error.message).toMatch(/^Prometheus rejected the query \(HTTP 400\) bad_data/);
        expect(error.message).not.toMatch(/hunter2|admin/);
      });

      it("answers null, without an error, when nothing is configured", async () => {
        const info = await callTool(GetServerInfo, { region: "eu-west-1" }, makeToolCall());
        expect(info).toEqual({
          prometheus_url: null,
          aws_region: "eu-west-1",
          aws_profile: "default",
          service_name: "aps",
          auth_mode: "sigv4",
          backend_kind: "amp",
          server_time: expect.any(String),
          result_budget_bytes: 1_000_000,
          result_budget_tokens: 20_000,
        });
      });
    });

    describe("workspace resolution", () => {
      it("an explicit workspace_id wins over a PROMETHEUS_URL that names no workspace (plain Prometheus, no allow-list)", async () => {
        const call = configured({ prometheusUrl: await refusedUrl() });
        const result = await callTool(
          ExecuteQuery,
          { workspace_id: WS_OTHER, query: "count(test_temperature_celsius)", time: String(end) },
          call,
        );
        expect(result).toMatchObject({ result: [{ value: [end, "1"] }] });
        expect(proxy.requests.map((r) => r.rawUrl.split("?")[0])).toEqual([
          `/workspaces/${WS_OTHER}/api/v1/query`,
        ]);
      });

      it("makes one data-plane call per query on a warm container (DescribeWorkspace once, then cached)", async () => {
        const call = configured({ prometheusUrl: undefined });
        for (let i = 0; i < 3; i++) {
          await callTool(ExecuteQuery, { workspace_id: WS_WARM, query: "up", time: String(end) }, call);
        }
        await callTool(ListMetrics, { workspace_id: WS_WARM }, call);
        expect(amp.calls.DescribeWorkspace).toBe(1);
        expect(proxy.requests).toHaveLength(4);
      });

      it("names the workspace and region when DescribeWorkspace finds nothing", async () => {
        const error = await toolError(
          ExecuteQuery,
          { workspace_id: "ws-does-not-exist", query: "up" },
          configured({ prometheusUrl: undefined }),
        );
        expect(error).toBeInstanceOf(ToolError);
        expect(error.message).toMatch(
          /^Workspace ws-does-not-exist not found in us-west-2\. Use GetAvailableWorkspaces/,
        );
        expect(proxy.requests).toHaveLength(0);
      });
    });

    describe("which workspaces a deployment may read", () => {
      it("a deployment pinned to team A's workspace refuses ListMetrics on team B's: nothing leaves the function", async () => {
        const error = await toolError(ListMetrics, { workspace_id: WS_OTHER }, configured());
        expect(error).toBeInstanceOf(ToolError);
        expect(error.message).toBe(
          `Workspace ${WS_OTHER} is not one this deployment may read: it is limited to ${WS}. Omit workspace_id to use the configured ${WS}. To read others, the deployer must add them to ALLOWED_WORKSPACES (the allowedWorkspaces parameter).`,
        );
        for (const [tool, args] of [
          [ExecuteQuery, { workspace_id: WS_OTHER, query: "up" }],
          [
            ExecuteRangeQuery,
            { workspace_id: WS_OTHER, query: "up", start: String(start), end: String(end), step: "1m" },
          ],
          [GetServerInfo, { workspace_id: WS_OTHER }],
        ] as const) {
          expect((await toolError(tool, args, configured())).message).toMatch(
            /is not one this deployment may read/,
          );
        }
        expect(proxy.requests).toHaveLength(0);
        expect(amp.calls).toEqual({ ListWorkspaces: 0, DescribeWorkspace: 0 });
        // Its own workspace still answers, by default or by id.
        expect(await callTool(ListMetrics, {}, configured())).toEqual({ metrics: [...METRIC_NAMES] });
        expect(await callTool(ListMetrics, { workspace_id: WS }, configured())).toEqual({
          metrics: [...METRIC_NAMES],
        });
      });

      it("ALLOWED_WORKSPACES names more workspaces a pinned deployment may read", async () => {
        const call = configured({ allowedWorkspaces: [WS_OTHER] });
        expect(await callTool(ListMetrics, { workspace_id: WS_OTHER }, call)).toEqual({
          metrics: [...METRIC_NAMES],
        });
        expect(proxy.requests.map((r) => r.rawUrl)).toEqual([
          `/workspaces/${WS_OTHER}/api/v1/label/__name__/values`,
        ]);
        proxy.reset();
        amp.resetCalls();
        const refused = await toolError(ListMetrics, { workspace_id: WS_WARM }, call);
        expect(refused.message).toMatch(`it is limited to ${WS}, ${WS_OTHER}.`);
        expect(proxy.requests).toHaveLength(0);
        expect(amp.calls.DescribeWorkspace).toBe(0);
      });
    });

    describe("signature checks", () => {
      it("surfaces AMP's 403 when the signature does not verify (wrong secret)", async () => {
        const strict = await startSigV4Proxy({
          target: prometheus.url,
          region: REGION,
          secretAccessKey: "another-secret",
        });
        try {
          const error = await toolError(
            ExecuteQuery,
            { query: "up" },
            configured({ prometheusUrl: strict.workspaceUrl(WS) }),
          );
          expect(error).toBeInstanceOf(ToolError);
          expect(error.message).toMatch(/HTTP 403/);
          expect(error.message).toContain("The request signature we calculated does not match");
          expect(strict.lastRejection).toBe("signature mismatch");
          expect(strict.requests).toHaveLength(1);
        } finally {
          await strict.close();
        }
      });

      it("signs for the resolved region (a region argument changes the credential scope)", async () => {
        const error = await toolError(ExecuteQuery, { query: "up", region: "eu-west-1" }, configured());
        expect(error.message).toMatch(/HTTP 403/);
        expect(proxy.lastRejection).toBe("credential scope region eu-west-1 != us-west-2");
      });
    });
  },
);
