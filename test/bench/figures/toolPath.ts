// Figure 4: ExecuteQuery through the handler against a direct signed fetch of the same query to the
// same local Prometheus; Figure 5: HTTP calls per tool call, cold and warm.
import { createSignedFetcher } from "aws-sigv4-fetch";
import { httpEvent, lambdaContext } from "../../support/events.js";
import { DATASET } from "../../support/prometheus.js";
import { type BenchContext, REGION, WORKSPACE_ID } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";

const HEADERS = { "content-type": "application/json" };
const QUERY = "sum(test_temperature_celsius)";
const TIME = String(DATASET.start + 1800);

function toolCall(args: Record<string, unknown>) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ExecuteQuery", arguments: args },
  };
  return httpEvent("v2", { method: "POST", path: "/mcp", headers: HEADERS, body: JSON.stringify(body) });
}

async function callOk(ctx: BenchContext, event: unknown): Promise<void> {
  const result = (await ctx.handler(event, lambdaContext(60_000))) as { statusCode: number; body: string };
  if (result.statusCode !== 200 || JSON.parse(result.body).result?.isError) throw new Error(result.body);
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const signed = createSignedFetcher({
    service: "aps",
    region: REGION,
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? "",
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? "",
    },
  });
  const direct = async () => {
    const url = `${ctx.prometheusUrl}/api/v1/query?query=${encodeURIComponent(QUERY)}&time=${TIME}`;
    const response = await signed(url, { method: "GET" });
    if (response.status !== 200) throw new Error(`Prometheus answered ${response.status}`);
    await response.json();
  };
  const event = toolCall({ query: QUERY, time: TIME });
  const [ours, baseline] = await interleave(
    () => callOk(ctx, event),
    direct,
    ctx.quick ? 30 : 2_000,
    ctx.quick ? 5 : 200,
  );
  const ratio = ours.p50 / baseline.p50;
  const figures: Figure[] = [
    {
      id: "tool-path",
      title: "`ExecuteQuery` through the handler vs a direct SigV4-signed fetch of the same query",
      unit: "ms",
      ours,
      baseline: { name: "direct signed fetch", value: baseline },
      ratio,
      target: "ours ≤ 1.2× the direct call, or within 0.5 ms",
      met: ratio <= 1.2 || ours.p50 - baseline.p50 <= 0.5,
      note: `difference of medians ${(ours.p50 - baseline.p50).toFixed(3)} ms; here the ratio is ours / direct (lower is better)`,
    },
  ];

  // HTTP calls per tool call with a workspace_id: the first resolves the workspace (DescribeWorkspace), later ones do not.
  const byWorkspace = toolCall({ workspace_id: WORKSPACE_ID, query: QUERY, time: TIME });
  const count = async () => {
    ctx.proxy.reset();
    ctx.amp.resetCalls();
    await callOk(ctx, byWorkspace);
    return ctx.proxy.requests.length + ctx.amp.calls.DescribeWorkspace + ctx.amp.calls.ListWorkspaces;
  };
  const cold = await count();
  const warm = await count();
  figures.push(
    {
      id: "http-calls-cold",
      title: "HTTP calls per `ExecuteQuery` with `workspace_id`, cold container",
      unit: "calls",
      ours: cold,
      baseline: {
        name: "Python prometheus-mcp-server (three calls per query, a connection probe among them; not run here)",
        value: 3,
      },
      target: "2 (DescribeWorkspace + query)",
      met: cold === 2,
    },
    {
      id: "http-calls-warm",
      title: "HTTP calls per `ExecuteQuery` with `workspace_id`, warm container",
      unit: "calls",
      ours: warm,
      baseline: {
        name: "Python prometheus-mcp-server (three calls per query, a connection probe among them; not run here)",
        value: 3,
      },
      target: "1 (the query)",
      met: warm === 1,
    },
  );
  return figures;
}
