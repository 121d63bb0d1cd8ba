import { expect } from "vitest";
import { DATASET, METRIC_NAMES } from "./prometheus.js";
import type { SigV4Proxy } from "./sigv4Proxy.js";

/** What any MCP client we test with offers: SDK 1.x `Client` and v2 `@modelcontextprotocol/client` alike. */
export interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

interface CallResult {
  content?: Array<{ type: string; mimeType?: string; data?: string }>;
  structuredContent?: unknown;
  isError?: unknown;
}

/**
 * Calls every tool through `client` against the AMP stack (one ACTIVE workspace, the test dataset in
 * Prometheus, an Alertmanager under the workspace) and checks each answer, and two that must fail (a
 * PromQL syntax error, a missing argument); every data-plane call must have carried a valid signature.
 * Resolves to the number of tools/call requests made. `afterFirst` runs once the first tool result is in.
 */
export async function callEveryTool(
  client: ToolCaller,
  stack: { workspaceId: string; region: string; proxy: SigV4Proxy },
  afterFirst: () => void = () => undefined,
): Promise<number> {
  let calls = 0;
  const { workspaceId: WS, region } = stack;
  const call = async (name: string, args: Record<string, unknown>) => {
    calls++;
    return (await client.callTool({ name, arguments: args })) as CallResult;
  };

  const workspaces = await call("GetAvailableWorkspaces", {});
  afterFirst();
  expect(workspaces.structuredContent).toMatchObject({
    count: 1,
    workspaces: [{ workspace_id: WS, status: "ACTIVE" }],
  });
  const info = await call("GetServerInfo", { workspace_id: WS });
  expect(info.structuredContent).toMatchObject({ aws_region: region, service_name: "aps" });
  const metrics = await call("ListMetrics", { workspace_id: WS });
  expect(metrics.structuredContent).toStrictEqual({ metrics: [...METRIC_NAMES].sort() });
  const instant = await call("ExecuteQuery", {
    workspace_id: WS,
    query: "count(test_temperature_celsius)",
    time: String(DATASET.start + 300),
  });
  expect(instant.structuredContent).toMatchObject({
    resultType: "vector",
    result: [{ value: [DATASET.start + 300, "1"] }],
  });
  const range = await call("ExecuteRangeQuery", {
    workspace_id: WS,
    query: "count(test_temperature_celsius)",
    start: String(DATASET.start),
    end: String(DATASET.start + 120),
    step: "1m",
  });
  expect(range.structuredContent).toMatchObject({
    resultType: "matrix",
    result: [{ values: expect.any(Array) }],
  });
  expect((range.structuredContent as { result: { values: unknown[] }[] }).result[0]?.values).toHaveLength(3);
  // The chart: a PNG image first, then what it shows (one line, its statistics).
  const chart = await call("PlotRangeQuery", {
    workspace_id: WS,
    query: "test_temperature_celsius",
    start: String(DATASET.start),
    end: String(DATASET.end),
    step: "1m",
  });
  expect(chart.content?.[0]).toMatchObject({ type: "image", mimeType: "image/png" });
  expect(
    Buffer.from(chart.content?.[0]?.data ?? "", "base64")
      .subarray(1, 4)
      .toString(),
  ).toBe("PNG");
  expect(chart.structuredContent).toMatchObject({ chart: { series: 1, in_band: 0 } });
  const failed = await call("ExecuteQuery", { workspace_id: WS, query: "sum(" });
  expect(failed.isError).toBe(true);

  // The discovery and alerting tools: the dataset's labels and series; no rules, alerts or silences.
  const labels = await call("ListLabels", { workspace_id: WS, match: "test_requests_total" });
  expect(labels.structuredContent).toStrictEqual({ labels: ["__name__", "instance", "job"] });
  const values = await call("ListLabelValues", {
    workspace_id: WS,
    label: "instance",
    match: ["test_requests_total"],
  });
  expect(values.structuredContent).toStrictEqual({ label: "instance", values: ["a", "b"] });
  const series = await call("FindSeries", { workspace_id: WS, match: "test_temperature_celsius" });
  expect(series.structuredContent).toStrictEqual({
    series: [{ __name__: "test_temperature_celsius", room: "lab" }],
  });
  // Data imported with promtool carries no metadata: an empty list, and a hint saying why.
  const metadata = await call("GetMetricMetadata", { workspace_id: WS, metric: "test_requests_total" });
  expect(metadata.structuredContent).toStrictEqual({ metadata: [] });
  const alerts = await call("ListAlerts", { workspace_id: WS, state: "firing" });
  expect(alerts.structuredContent).toStrictEqual({ alerts: [] });
  const rules = await call("ListRules", { workspace_id: WS });
  expect(rules.structuredContent).toStrictEqual({ rules: [] });
  const silences = await call("ListSilences", { workspace_id: WS });
  expect(silences.structuredContent).toStrictEqual({ silences: [] });
  // The dataset has no ALERTS series: no episode in the last day.
  const history = await call("GetAlertHistory", { workspace_id: WS });
  expect(history.structuredContent).toMatchObject({ resolution: "2m", alerts: [] });
  // Nothing firing or broken; AMP has no targets API nor runtime info, which the overview says.
  const overview = await call("GetHealthOverview", { workspace_id: WS });
  expect(overview.structuredContent).toMatchObject({
    summary: expect.stringMatching(
      /^0 alerts firing, 0 pending; no rule failing; 0 active silences; not seen: targets, data\.$/,
    ),
    not_seen: { targets: expect.any(String), data: expect.any(String) },
  });
  expect(Object.keys((overview.structuredContent as { not_seen: object }).not_seen)).toEqual([
    "targets",
    "data",
  ]);
  const missing = await call("FindSeries", { workspace_id: WS });
  expect(missing.isError).toBe(true);
  expect(stack.proxy.lastRejection).toBeUndefined();
  return calls;
}
