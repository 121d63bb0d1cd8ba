// Figure 8: what a tool call answers on realistic large queries (a day of CPU for 300 pods, 20,002 metric
// names), ours against the pass-through answer the Python Lambda gives; and what the budget costs on
// a ~1 MB answer that fits, against the least any pass-through server does with it.
import { createHandler } from "../../../src/app.js";
import { loadConfig } from "../../../src/config.js";
import { httpEvent, lambdaContext } from "../../helpers/events.js";
import {
  CPU_METRIC,
  LARGE_DATASET,
  largeOpenMetricsChunks,
  MEMORY_METRIC,
} from "../../support/largeDataset.js";
import { startPrometheus } from "../../support/prometheus.js";
import type { BenchContext, Handler } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const { start, end } = LARGE_DATASET;
const CPU = `rate(${CPU_METRIC}[5m])`;
const DAY = { start: String(start + 300), end: String(end) };
/** Text of at most this many bytes is what MAX_RESULT_BYTES allows by default. */
const DEFAULT_BUDGET = 100_000;

interface Case {
  id: string;
  title: string;
  tool: "ExecuteQuery" | "ExecuteRangeQuery" | "ListMetrics";
  args: Record<string, string>;
  /** The Prometheus API call the pass-through answer is made of. */
  api: { path: string; params: Record<string, string> };
}

const CASES: Case[] = [
  {
    id: "size-cpu-by-pod-day",
    title: "CPU by pod, 24 h at 60 s (300 series)",
    tool: "ExecuteRangeQuery",
    args: { query: CPU, ...DAY, step: "60s" },
    api: { path: "query_range", params: { query: CPU, ...DAY, step: "60" } },
  },
  {
    id: "size-cpu-by-pod-hour",
    title: "CPU by pod, last hour at 15 s",
    tool: "ExecuteRangeQuery",
    args: { query: CPU, start: String(end - 3600), end: String(end), step: "15s" },
    api: {
      path: "query_range",
      params: { query: CPU, start: String(end - 3600), end: String(end), step: "15" },
    },
  },
  {
    id: "size-cpu-by-namespace-day",
    title: "CPU by namespace (sum by), 24 h at 5 m: the advice followed",
    tool: "ExecuteRangeQuery",
    args: { query: `sum by (namespace) (${CPU})`, ...DAY, step: "5m" },
    api: { path: "query_range", params: { query: `sum by (namespace) (${CPU})`, ...DAY, step: "300" } },
  },
  {
    id: "size-cpu-now",
    title: "CPU by pod now (instant, 300 samples)",
    tool: "ExecuteQuery",
    args: { query: CPU, time: String(end) },
    api: { path: "query", params: { query: CPU, time: String(end) } },
  },
  {
    id: "size-memory-now",
    title: "Memory by node now (instant, 3 samples)",
    tool: "ExecuteQuery",
    args: { query: MEMORY_METRIC, time: String(end) },
    api: { path: "query", params: { query: MEMORY_METRIC, time: String(end) } },
  },
  {
    id: "size-list-metrics",
    title: "ListMetrics (20,002 names)",
    tool: "ListMetrics",
    args: {},
    api: { path: "label/__name__/values", params: {} },
  },
];

function callEvent(tool: string, args: Record<string, string>) {
  const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } };
  return httpEvent("v2", { method: "POST", path: "/mcp", headers: HEADERS, body: JSON.stringify(body) });
}

interface Answer {
  bodyBytes: number;
  textChars: number;
  note: string | undefined;
}

async function ours(handler: Handler, tool: string, args: Record<string, string>): Promise<Answer> {
  const http = (await handler(callEvent(tool, args), lambdaContext(60_000))) as { body: string };
  const { result } = JSON.parse(http.body) as { result: { content: { text: string }[]; isError?: boolean } };
  if (result.isError) throw new Error(result.content[0]?.text);
  return {
    bodyBytes: Buffer.byteLength(http.body),
    textChars: result.content.reduce((sum, item) => sum + item.text.length, 0),
    note: result.content[1]?.text,
  };
}

/** The Python Lambda's answer: Prometheus's data whole, as indented text and again as structuredContent. */
async function passThrough(prometheusUrl: string, tool: string, api: Case["api"]): Promise<Answer> {
  const response = await fetch(`${prometheusUrl}/api/v1/${api.path}?${new URLSearchParams(api.params)}`);
  const data = ((await response.json()) as { data: unknown }).data;
  const structured = tool === "ListMetrics" ? { metrics: data } : data;
  const text = JSON.stringify(structured, null, 2);
  const reply = {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text }], structuredContent: structured },
  };
  return { bodyBytes: Buffer.byteLength(JSON.stringify(reply)), textChars: text.length, note: undefined };
}

const tokens = (chars: number) => Math.round(chars / 4).toLocaleString("en-US");
const bytes = (n: number) => n.toLocaleString("en-US");

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const prometheus = await startPrometheus({ openMetrics: largeOpenMetricsChunks });
  try {
    const handler = createHandler(
      loadConfig({
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        LOG_LEVEL: "SILENT",
        METRICS: "off",
      }),
    ) as unknown as Handler;
    const figures: Figure[] = [];
    for (const { id, title, tool, args, api } of CASES) {
      const mine = await ours(handler, tool, args);
      const python = await passThrough(prometheus.url, tool, api);
      const cut = mine.note?.match(/^Cut[^:]*: ([^;.(]*)/)?.[1];
      figures.push({
        id,
        title: `Answer size: ${title}`,
        unit: "bytes",
        ours: mine.bodyBytes,
        baseline: { name: "pass-through (Python Lambda)", value: python.bodyBytes },
        ratio: python.bodyBytes / mine.bodyBytes,
        target: `text ≤ ${bytes(DEFAULT_BUDGET)} bytes (~25,000 tokens), response ≤ 6,000,000 bytes`,
        met: mine.textChars <= DEFAULT_BUDGET && mine.bodyBytes <= 6_000_000,
        note:
          `text ≈ ${tokens(mine.textChars)} tokens vs ${tokens(python.textChars)} passed through (chars / 4, not a tokenizer); ` +
          (cut ? `cut: ${cut.trim()}` : "returned whole"),
      });
    }
    figures.push(await budgetCost(ctx, prometheus.url));
    return figures;
  } finally {
    await prometheus.close();
  }
}

/**
 * A ~1 MB answer that fits (MAX_RESULT_BYTES=2000000, a direct invocation so the response's share
 * allows it): our whole tool call, against the least a pass-through server does with the same answer
 * (fetch, parse, JSON text, serialize the reply).
 */
async function budgetCost(ctx: BenchContext, prometheusUrl: string): Promise<Figure> {
  const params = { query: `${CPU.replace("[5m]", '{namespace="payments"}[5m]')}`, ...DAY, step: "120" };
  const handler = createHandler(
    loadConfig({
      PROMETHEUS_URL: prometheusUrl,
      PROMETHEUS_AUTH: "none",
      LOG_LEVEL: "SILENT",
      METRICS: "off",
      MAX_RESULT_BYTES: "2000000",
    }),
  ) as unknown as Handler;
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ExecuteRangeQuery", arguments: { ...params, step: "120s" } },
  };
  let answerBytes = 0;
  const mine = async () => {
    const reply = (await handler(message, lambdaContext(60_000))) as {
      result: { structuredContent: { truncated?: unknown }; content: unknown[] };
    };
    if (reply.result.structuredContent.truncated !== undefined) throw new Error("the 1 MB answer was cut");
    JSON.stringify(reply);
  };
  const bare = async () => {
    const response = await fetch(`${prometheusUrl}/api/v1/query_range?${new URLSearchParams(params)}`);
    const body = await response.text();
    answerBytes = Buffer.byteLength(body);
    const data = (JSON.parse(body) as { data: unknown }).data;
    const text = JSON.stringify(data);
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text }], structuredContent: data },
    });
  };
  const [withBudget, baseline] = await interleave(mine, bare, ctx.quick ? 5 : 60, ctx.quick ? 2 : 10);
  const ratio = withBudget.p50 / baseline.p50;
  return {
    id: "budget-cost",
    title: `\`ExecuteRangeQuery\` on a ${(answerBytes / 1e6).toFixed(2)} MB answer that fits, through the handler`,
    unit: "ms",
    ours: withBudget,
    baseline: { name: "bare pass-through (fetch, parse, JSON text, reply)", value: baseline },
    ratio,
    target: "ours ≤ 1.05× the bare pass-through",
    met: ratio <= 1.05,
    note: "here the ratio is ours / bare (lower is better); ours streams the answer, ranks nothing (it fits) and checks sizes",
  };
}
