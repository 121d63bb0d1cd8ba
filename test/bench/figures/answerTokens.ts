// Figure 8, "Answer tokens": what an assistant investigating an incident reads. On-call questions over
// the realistic dataset (20 nodes, 200 pods, 8 services, a day at 60 s, planted outliers), each answered
// by this handler at the default budget, by the commit before the token budget (BASE_REVISION, its
// byte budget), and passed through as the Python Lambda did (indented text plus structuredContent):
// bytes, tokens by both real tokenizers, series in view, series with curves, points per curve. Then
// what the budget costs: on a 1.2 MB answer that fits, reading a large answer with statistics, a 40 MB
// answer in a small heap. Then tools/list as a model reads it, in each mode (AMP, a plain Prometheus,
// PYTHON_COMPAT), its own figure (`toolsListModes`, registered as `toolsList`).

import { readAnswer } from "../../../src/prometheus/answerReader.js";
import { compactElement, pointsOfValues, rangeHeader } from "../../../src/results/compactCurve.js";
import { QueryResultCollector } from "../../../src/results/queryResult.js";
import { parseJsonBytes } from "../../../src/util/json.js";
import { bundleStreamProbe, probeRangeQuery, startBigAnswerServer } from "../../support/bigAnswer.js";
import { httpEvent, lambdaContext } from "../../support/events.js";
import { makeHandler } from "../../support/handler.js";
import {
  ON_CALL_QUESTIONS,
  type OnCallQuestion,
  onCallOpenMetricsChunks,
} from "../../support/onCallDataset.js";
import { startPrometheus } from "../../support/prometheus.js";
import { maxRealTokens, realTokens } from "../../support/tokenizers.js";
import type { BenchContext, Handler } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";
import { appOfRevision } from "../revision.js";

/** The last commit before the token budget: its answers are the "before" of every row. */
const BASE_REVISION = "a29d127";
const BUDGET = 20_000;
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
/** Pass-through texts longer than this are not tokenized in --quick runs (tens of MB take minutes). */
const QUICK_TOKENIZE_LIMIT = 2_000_000;
const MB = 1024 * 1024;

interface Answer {
  /** Every text item, joined: what the model reads. */
  text: string;
  value: {
    result?: Array<{ values?: unknown[]; value?: unknown }>;
    series_stats?: { rows: unknown[] };
    truncated?: {
      cut_by?: string;
      total?: { series?: number };
      rows_missing?: number;
      downsampled?: unknown;
    };
  };
}

/** A cut by size that left something out: rows, series' curves, or points (not just runs and digits). */
function leftOut(answer: Answer): boolean {
  const cut = answer.value.truncated;
  if (cut?.cut_by !== "size") return false;
  const series = cut.total?.series ?? 0;
  return (
    cut.rows_missing !== undefined ||
    cut.downsampled !== undefined ||
    (answer.value.result?.length ?? 0) < series
  );
}

function callEvent(tool: string, args: Record<string, string>) {
  const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } };
  return httpEvent("v2", { method: "POST", path: "/mcp", headers: HEADERS, body: JSON.stringify(body) });
}

async function ask(handler: Handler, question: OnCallQuestion): Promise<Answer> {
  const http = (await handler(callEvent(question.tool, question.args), lambdaContext(60_000))) as {
    body: string;
  };
  const { result } = JSON.parse(http.body) as {
    result: { content: { text: string }[]; structuredContent: Answer["value"]; isError?: boolean };
  };
  if (result.isError) throw new Error(`${question.id}: ${result.content[0]?.text}`);
  return { text: result.content.map((item) => item.text).join("\n"), value: result.structuredContent };
}

/** The Python Lambda's answer: Prometheus's data whole, as indented text. */
async function passThrough(prometheusUrl: string, question: OnCallQuestion): Promise<Answer> {
  const { limit: _limit, ...params } = question.args;
  const path = question.tool === "ExecuteQuery" ? "query" : "query_range";
  const response = await fetch(`${prometheusUrl}/api/v1/${path}?${new URLSearchParams(params)}`);
  const data = ((await response.json()) as { data: Answer["value"] }).data;
  return { text: JSON.stringify(data, null, 2), value: data };
}

interface Measured {
  bytes: number;
  claude?: number;
  o200k?: number;
  /** Series the answer names: table rows, else the series of its result. */
  inView: number;
  curves: number;
  points: number[];
}

/** Series a table's rows stand for: a collapsed row (an array in its label cell) one per value listed. */
function seriesInTable(rows: readonly unknown[]): number {
  return rows.reduce<number>((count, row) => {
    const collapsed = Array.isArray(row) ? row.find((cell) => Array.isArray(cell)) : undefined;
    return count + (Array.isArray(collapsed) ? collapsed.length : 1);
  }, 0);
}

function measured(answer: Answer, tokenize: boolean): Measured {
  const result = answer.value.result ?? [];
  const tokens = tokenize ? realTokens(answer.text) : {};
  return {
    bytes: Buffer.byteLength(answer.text),
    ...tokens,
    inView: answer.value.series_stats ? seriesInTable(answer.value.series_stats.rows) : result.length,
    curves: result.length,
    // A compact answer (its `range` header) writes a curve's points as entries, a bucket's two extremes as a pair.
    points: result.map((series) =>
      Array.isArray(series.values) ? pointsOfValues(series.values, "range" in answer.value) : 1,
    ),
  };
}

const count = (n: number | undefined) => (n === undefined ? "not counted" : n.toLocaleString("en-US"));
const most = (m: Measured) => Math.max(m.claude ?? 0, m.o200k ?? 0);

function describe(m: Measured): string {
  const sorted = [...m.points].sort((a, b) => a - b);
  const perCurve =
    sorted.length === 0 ? "no curves" : `${sorted[0]}–${sorted[sorted.length - 1]} points per series`;
  return `${count(m.bytes)} B, ${count(m.claude)} Claude / ${count(m.o200k)} o200k tokens, ${m.inView} in view, ${m.curves} in result (${perCurve})`;
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const prometheus = await startPrometheus({ openMetrics: onCallOpenMetricsChunks });
  try {
    const ours = makeHandler({ PROMETHEUS_URL: prometheus.url, PROMETHEUS_AUTH: "none" });
    const base = await appOfRevision(ctx.root, BASE_REVISION);
    const before = base.app?.createHandler(
      base.app.loadConfig({
        PROMETHEUS_URL: prometheus.url,
        PROMETHEUS_AUTH: "none",
        LOG_LEVEL: "SILENT",
        METRICS: "off",
      }),
    );
    const figures: Figure[] = [];
    /** Per range question: how many points of Prometheus's answer, written compact, fit the default budget. */
    const pointsPerBudget: number[] = [];
    for (const question of ON_CALL_QUESTIONS) {
      const answer = await ask(ours, question);
      const mine = measured(answer, true);
      const then = before && measured(await ask(before, question), true);
      const whole = await passThrough(prometheus.url, question);
      const tokenize = !ctx.quick || whole.text.length <= QUICK_TOKENIZE_LIMIT;
      const python = measured(whole, tokenize);
      if (question.tool === "ExecuteRangeQuery" && tokenize) {
        const compact = realTokens(compactText(question, whole.value));
        const points = python.points.reduce((sum, n) => sum + n, 0);
        pointsPerBudget.push(Math.floor((BUDGET * points) / Math.max(compact.claude, compact.o200k)));
      }
      const cut = answer.value.truncated !== undefined;
      const within = (mine.claude ?? 0) <= BUDGET && (mine.o200k ?? 0) <= BUDGET;
      const used = !leftOut(answer) || most(mine) >= 0.8 * BUDGET;
      figures.push({
        id: `tokens-${question.id}`,
        title: `Answer tokens: ${question.title}`,
        unit: "tokens",
        ours: most(mine),
        baseline: { name: "pass-through (Python Lambda)", value: most(python) || python.bytes },
        ratio: most(python) > 0 ? most(python) / most(mine) : undefined,
        target: "≤ 20,000 by both tokenizers; an answer cut by size uses ≥ 80 % of it by one",
        met: within && used,
        note:
          `ours: ${describe(mine)}${cut ? "" : " (whole)"}; ` +
          `before (${BASE_REVISION}): ${then ? describe(then) : base.reason}; ` +
          `pass-through: ${describe(python)}`,
      });
    }
    figures.push(pointsFit(pointsPerBudget));
    figures.push(await budgetCost(ctx, prometheus.url));
    figures.push(await statisticsCost(ctx, prometheus.url));
    figures.push(await boundedMemory(ctx.root));
    return figures;
  } finally {
    await prometheus.close();
  }
}

/** Prometheus's range answer as a whole answer writes it in the compact form (src/results/compactCurve.ts). */
function compactText(question: OnCallQuestion, data: Answer["value"]): string {
  const { start = "", end = "", step = "" } = question.args;
  const range = { start: Number(start), end: Number(end), step: Number(step) };
  const asked = {
    query: question.args.query ?? "",
    range,
    order: "unusual" as const,
    form: "compact" as const,
  };
  const result = (data.result ?? []).map((element) => compactElement(element, asked));
  return JSON.stringify({ resultType: "matrix", range: rangeHeader(range), result });
}

/**
 * What ExecuteRangeQuery's description promises: about 3,000 points of an answer fit the default
 * budget whole. Measured on Prometheus's answers to the range questions written compact, by the larger
 * real count.
 */
function pointsFit(perBudget: readonly number[]): Figure {
  const fewest = Math.min(...perBudget);
  return {
    id: "range-points-per-budget",
    title: "Points of a range answer that fit 20,000 tokens whole (the fewest among the range questions)",
    unit: "points",
    ours: fewest,
    target: "≥ 3,000, as ExecuteRangeQuery's description says",
    met: fewest >= 3_000,
    note: `per question: ${perBudget.map((n) => n.toLocaleString("en-US")).join(", ")}`,
  };
}

/** An AMP workspace URL: only its shape matters, tools/list calls nothing. */
const AMP_URL = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-12345678-abcd/";

/** The configurations whose tools/list is measured, AMP first: the others are compared with it. */
const TOOLS_LIST_MODES = [
  {
    id: "tools-list-tokens",
    mode: "AMP",
    detail: "PROMETHEUS_URL an AMP workspace URL, PROMETHEUS_AUTH=sigv4",
    env: { PROMETHEUS_URL: AMP_URL, PROMETHEUS_AUTH: "sigv4" },
    target: "report (lean: every description short)",
    met: () => true,
  },
  {
    id: "tools-list-tokens-plain",
    mode: "plain Prometheus",
    detail: "PROMETHEUS_URL=http://127.0.0.1:9090, PROMETHEUS_AUTH=none",
    env: { PROMETHEUS_URL: "http://127.0.0.1:9090", PROMETHEUS_AUTH: "none" },
    target: "fewer bytes and tokens than AMP's (no workspace_id, region, profile, GetAvailableWorkspaces)",
    met: (m: Listing, amp: Listing) => leaner(m, amp),
  },
  {
    id: "tools-list-tokens-python-compat",
    mode: "PYTHON_COMPAT=true",
    detail: "the AMP workspace URL, sigv4, PYTHON_COMPAT=true (TOOLS defaults to core)",
    env: { PROMETHEUS_URL: AMP_URL, PROMETHEUS_AUTH: "sigv4", PYTHON_COMPAT: "true" },
    target: "the five core tools only, fewer bytes and tokens than AMP's",
    met: (m: Listing, amp: Listing) => m.tools === 5 && leaner(m, amp),
  },
] as const;

interface Listing {
  tools: number;
  bytes: number;
  claude: number;
  o200k: number;
  /** The initialize result's instructions, which a model also reads (bytes, larger token count). */
  instructionsBytes: number;
  instructionsTokens: number;
}

/** tools/list as a model receives it (the `tools` array as JSON), and initialize's instructions, of one configuration. */
async function listing(env: Record<string, string>): Promise<Listing> {
  const handler = makeHandler(env);
  const post = async (body: unknown) => {
    const event = httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers: HEADERS,
      body: JSON.stringify(body),
    });
    const http = (await handler(event, lambdaContext(10_000))) as { statusCode: number; body: string };
    const reply = JSON.parse(http.body) as { result?: Record<string, unknown>; error?: unknown };
    if (reply.result === undefined) throw new Error(`${http.statusCode} ${http.body}`);
    return reply.result;
  };
  const initialize = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  const instructions = typeof initialize.instructions === "string" ? initialize.instructions : "";
  const tools = (await post({ jsonrpc: "2.0", id: 2, method: "tools/list" })).tools as unknown[];
  const text = JSON.stringify(tools);
  return {
    tools: tools.length,
    bytes: Buffer.byteLength(text),
    ...realTokens(text),
    instructionsBytes: Buffer.byteLength(instructions),
    instructionsTokens: maxRealTokens(instructions),
  };
}

const thousands = (n: number) => n.toLocaleString("en-US");

/** Smaller than `than` in bytes and by both tokenizers. */
function leaner(m: Listing, than: Listing): boolean {
  return m.bytes < than.bytes && m.claude < than.claude && m.o200k < than.o200k;
}

/**
 * tools/list in each mode, measured in the same run: its bytes and tokens by both real tokenizers, the
 * number of tools, and for the plain Prometheus and PYTHON_COMPAT the ratio to AMP's (the full listing).
 * `npm run bench -- --only=toolsList` runs this alone.
 */
export async function toolsListModes(_ctx?: BenchContext): Promise<Figure[]> {
  const measured = [];
  for (const mode of TOOLS_LIST_MODES) measured.push({ ...mode, ...(await listing(mode.env)) });
  const [amp] = measured;
  if (amp === undefined) throw new Error("no AMP mode");
  const ampTokens = Math.max(amp.claude, amp.o200k);
  return measured.map((m) => {
    const tokens = Math.max(m.claude, m.o200k);
    const compared = m !== amp;
    const ratio = tokens / ampTokens;
    const note =
      `${m.detail}: ${m.tools} tools, ${thousands(m.bytes)} bytes, ${thousands(m.claude)} Claude / ` +
      `${thousands(m.o200k)} o200k tokens; initialize's instructions ${thousands(m.instructionsBytes)} bytes, ` +
      `${thousands(m.instructionsTokens)} tokens` +
      (compared
        ? `; here the ratio is ${m.mode} / AMP (lower is leaner): bytes ${(m.bytes / amp.bytes).toFixed(2)}×, ` +
          `Claude ${(m.claude / amp.claude).toFixed(2)}×, o200k ${(m.o200k / amp.o200k).toFixed(2)}×`
        : "");
    return {
      id: m.id,
      title: `tools/list (${m.mode}, ${m.tools} tools): the tool definitions a model reads`,
      unit: "tokens",
      ours: tokens,
      ...(compared ? { baseline: { name: "AMP mode's tools/list", value: ampTokens }, ratio } : {}),
      target: m.target,
      met: m.met(m, amp),
      note,
    };
  });
}

/**
 * A 1.2 MB answer that fits (a direct invocation, whose share of the response allows it, and a token
 * budget above it): our whole tool call against the least a pass-through server does with the same
 * answer (fetch, parse, JSON text, serialize the reply).
 */
async function budgetCost(ctx: BenchContext, prometheusUrl: string): Promise<Figure> {
  const question = ON_CALL_QUESTIONS.find((q) => q.id === "pod-p99-latency-day") as OnCallQuestion;
  const params = { ...question.args, step: "60" };
  const handler = makeHandler({
    PROMETHEUS_URL: prometheusUrl,
    PROMETHEUS_AUTH: "none",
    MAX_RESULT_TOKENS: "2000000",
  });
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: question.tool, arguments: question.args },
  };
  let answerBytes = 0;
  const mine = async () => {
    const reply = (await handler(message, lambdaContext(60_000))) as {
      result: { structuredContent: { truncated?: unknown } };
    };
    if (reply.result.structuredContent.truncated !== undefined) throw new Error("the 1.2 MB answer was cut");
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
    note: "here the ratio is ours / bare (lower is better); ours streams the answer, describes nothing (it fits) and checks sizes",
  };
}

/**
 * Reading a large answer (CPU per pod over the day, 200 series × 1,441 points) from memory: with our
 * collector, which describes every series (statistics, curves), against a sink that only receives the
 * parsed elements. Both pay the same scan and JSON.parse of each element.
 */
async function statisticsCost(ctx: BenchContext, prometheusUrl: string): Promise<Figure> {
  const question = ON_CALL_QUESTIONS.find((q) => q.id === "pod-cpu-day") as OnCallQuestion;
  const { start = "", end = "", step = "", query = "" } = question.args;
  const response = await fetch(
    `${prometheusUrl}/api/v1/query_range?${new URLSearchParams({ query, start, end, step })}`,
  );
  const body = new Uint8Array(await response.arrayBuffer());
  const range = { start: Number(start), end: Number(end), step: Number(step) };
  // A fresh collector per read, as each tool call makes.
  const withStats = () =>
    readAnswer(
      new Response(body),
      "bench",
      new QueryResultCollector(
        { tokens: BUDGET, bytes: 1_000_000 },
        { query, range, order: "unusual", form: "compact" },
      ),
      256 * MB,
    );
  // What reading cost before this work: each element parsed, and dropped (nothing kept is the least).
  let elements = 0;
  const parseOnly = () =>
    readAnswer(
      new Response(body),
      "bench",
      {
        element: (raw) => {
          parseJsonBytes(raw);
          elements++;
        },
        finish: () => elements,
      },
      256 * MB,
    );
  const [ours, baseline] = await interleave(withStats, parseOnly, ctx.quick ? 3 : 30, ctx.quick ? 1 : 5);
  const ratio = ours.p50 / baseline.p50;
  return {
    id: "statistics-cost",
    title: `Reading a ${(body.length / 1e6).toFixed(1)} MB answer with every series described (statistics, curves)`,
    unit: "ms",
    ours,
    baseline: { name: "the same read, each element JSON.parse'd and dropped (as before)", value: baseline },
    ratio,
    target: "≤ 1.10× (statistics add at most 10 %)",
    met: ratio <= 1.1,
    note: "here the ratio is ours / bare (lower is better); both scan the answer; ours reads a series' points from its bytes (JSON.parse for any other shape)",
  };
}

/**
 * A 40 MB range answer read through the handler by a process whose V8 heap is 40 MiB, against the same
 * process reading the same answer and dropping it (Node's fetch buffers it either way).
 */
async function boundedMemory(root: string): Promise<Figure> {
  const series = 1_500;
  const big = await startBigAnswerServer(series, 1_440, root);
  try {
    const probe = await bundleStreamProbe(root);
    const args = { query: "big", start: "1700000000", end: "1700086340", step: "60s" };
    const probed = await probeRangeQuery(probe, 40, big.url, args);
    const bare = await probeRangeQuery(probe, 40, big.url, args, "bare");
    const { result } = JSON.parse(probed.body) as {
      result: {
        structuredContent: { truncated: { total: { bytes: number } }; series_stats: { rows: unknown[] } };
      };
    };
    const answerBytes = result.structuredContent.truncated.total.bytes;
    const growth = (probed.peakRss - probed.baselineRss) / MB;
    const bareGrowth = (bare.peakRss - bare.baselineRss) / MB;
    return {
      id: "bounded-memory",
      title: `A ${(answerBytes / 1e6).toFixed(0)} MB answer (${series} series) read by a process with a 40 MiB V8 heap`,
      unit: "MiB RSS growth",
      ours: Math.round(growth * 10) / 10,
      baseline: {
        name: "the same process reading the answer and dropping it",
        value: Math.round(bareGrowth * 10) / 10,
      },
      target: "ours ≤ the bare read + 32 MiB (every series' statistics and curve)",
      met: growth <= bareGrowth + 32 && result.structuredContent.series_stats.rows.length > 0,
      note: `${Math.round(probed.ms)} ms; ${result.structuredContent.series_stats.rows.length} rows in series_stats`,
    };
  } finally {
    big.child.kill("SIGTERM");
  }
}
