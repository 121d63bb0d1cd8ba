import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningOffline, startOffline } from "../support/offline.js";
import {
  DATASET,
  METRIC_NAMES,
  prometheusAvailable,
  type RunningPrometheus,
  startPrometheus,
} from "../support/prometheus.js";

// The SDK's own client over its own Streamable HTTP transport, against `serverless offline` (npm start)
// serving the real handler, which queries a real Prometheus.

describe.skipIf(!prometheusAvailable())("MCP SDK client against serverless offline", () => {
  let prometheus: RunningPrometheus;
  let offline: RunningOffline;

  beforeAll(async () => {
    prometheus = await startPrometheus();
    offline = await startOffline({
      PROMETHEUS_URL: prometheus.url,
      PROMETHEUS_AUTH: "none",
      LOG_LEVEL: "WARN",
    });
  }, 120_000);

  afterAll(async () => {
    await offline?.close();
    await prometheus?.close();
  });

  it("connects, lists the five tools and queries Prometheus", async () => {
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${offline.url}/mcp`)));
    expect(client.getServerVersion()?.name).toBe("prometheus-mcp-lambda");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toStrictEqual([
      "ExecuteQuery",
      "ExecuteRangeQuery",
      "ListMetrics",
      "GetServerInfo",
      "GetAvailableWorkspaces",
    ]);
    const metrics = await client.callTool({ name: "ListMetrics", arguments: {} });
    expect(metrics.structuredContent).toStrictEqual({ metrics: [...METRIC_NAMES].sort() });
    const query = await client.callTool({
      name: "ExecuteQuery",
      arguments: { query: "count(test_temperature_celsius)", time: String(DATASET.start + 600) },
    });
    expect(query.isError).toBeFalsy();
    const data = query.structuredContent as { resultType: string; result: { value: [number, string] }[] };
    expect(data.resultType).toBe("vector");
    expect(data.result[0]?.value[0]).toBe(DATASET.start + 600);
    const failed = await client.callTool({ name: "ExecuteQuery", arguments: { query: "sum(" } });
    expect(failed.isError).toBe(true);
    await client.close();
  }, 60_000);
});
