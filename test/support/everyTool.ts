import { expect } from "vitest";
import { DATASET, METRIC_NAMES } from "./prometheus.js";
import type { SigV4Proxy } from "./sigv4Proxy.js";

/** What any MCP client we test with offers: SDK 1.x `Client` and v2 `@modelcontextprotocol/client` alike. */
export interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

interface CallResult {
  structuredContent?: unknown;
  isError?: unknown;
}

/**
 * Calls each of the five tools through `client` against the AMP stack (one ACTIVE workspace, the
 * test dataset in Prometheus) and checks each answer, then a PromQL syntax error; every data-plane
 * call must have carried a valid signature. `afterFirst` runs once the first tool result is in.
 */
export async function callEveryTool(
  client: ToolCaller,
  stack: { workspaceId: string; region: string; proxy: SigV4Proxy },
  afterFirst: () => void = () => undefined,
): Promise<void> {
  const { workspaceId: WS, region } = stack;
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallResult;

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
  const failed = await call("ExecuteQuery", { workspace_id: WS, query: "sum(" });
  expect(failed.isError).toBe(true);
  expect(stack.proxy.lastRejection).toBeUndefined();
}
