// First tool call from a fresh client, protocol revision 2026-07-28 (stateless: server/discover, then
// tools/call) against the legacy handshake (initialize, notifications/initialized, tools/call, with a
// session record in DynamoDB), both through the real `serverless offline` with the DynamoDB session
// store (dynalite behind a proxy that counts DynamoDB requests by X-Amz-Target). The clients are the
// v2 TypeScript SDK (@modelcontextprotocol/client) in mode "auto" and "legacy"; a third kind adopts a
// cached DiscoverResult (`connect({ prior })`) and calls inline. Each client calls GetServerInfo once
// and closes without ending its session (no DELETE), as most clients in the wild do.
import { Client, type DiscoverResult, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startDynalite } from "../../support/dynalite.js";
import { type RunningOffline, startOffline } from "../../support/offline.js";
import type { BenchContext } from "../context.js";
import { difference, startDynamoCounter, writes } from "../dynamoCounter.js";
import { type Stats, stats } from "../measure.js";
import type { Figure } from "../report.js";

type Kind = "modern" | "legacy" | "inline";
const KINDS: readonly Kind[] = ["modern", "legacy", "inline"];

interface Sample {
  /** connect() start to the tool result, ms. */
  ms: number;
  /** The HTTP requests sent until the result arrived, e.g. "POST tools/call 200". */
  requests: string[];
  /** Requests sent after the result, close() included. */
  afterResult: string[];
  /** DynamoDB requests by operation until the result arrived, and after it (close). */
  dynamo: Record<string, number>;
  dynamoAfter: Record<string, number>;
}

/** "POST initialize", "POST notifications/initialized", "GET", "DELETE". */
function label(init: RequestInit | undefined): string {
  const method = init?.method ?? "GET";
  if (typeof init?.body !== "string") return method;
  try {
    const message = JSON.parse(init.body) as { method?: unknown } | unknown[];
    if (Array.isArray(message)) return `${method} batch of ${message.length}`;
    return typeof message.method === "string" ? `${method} ${message.method}` : `${method} response`;
  } catch {
    return `${method} (not JSON)`;
  }
}

async function firstCall(
  url: URL,
  kind: Kind,
  discover: DiscoverResult | undefined,
  dynamoCounts: () => Record<string, number>,
): Promise<Sample & { discover: DiscoverResult | undefined }> {
  const requests: string[] = [];
  const afterResult: string[] = [];
  let resultArrived = false;
  const countingFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const log = resultArrived ? afterResult : requests;
    const index = log.push(label(init)) - 1;
    const response = await fetch(input, init);
    log[index] = `${log[index]} ${response.status}`;
    return response;
  };
  const client = new Client(
    { name: "bench-first-call", version: "1.0.0" },
    { versionNegotiation: { mode: kind === "legacy" ? "legacy" : "auto" } },
  );
  const transport = new StreamableHTTPClientTransport(url, { fetch: countingFetch });
  if (kind === "inline" && discover === undefined) throw new Error("an inline client needs a DiscoverResult");

  const before = dynamoCounts();
  const start = performance.now();
  await client.connect(
    transport,
    kind === "inline" && discover ? { prior: { kind: "modern", discover } } : undefined,
  );
  const result = await client.callTool({ name: "GetServerInfo", arguments: {} });
  const ms = performance.now() - start;
  resultArrived = true;
  const atResult = dynamoCounts();

  const era = client.getProtocolEra();
  const expected = kind === "legacy" ? "legacy" : "modern";
  const learned = client.getDiscoverResult();
  await client.close();
  if (era !== expected) throw new Error(`${kind} client negotiated the ${era ?? "no"} era`);
  const info = result.structuredContent as { prometheus_url?: unknown } | undefined;
  if (result.isError || info?.prometheus_url === undefined) {
    throw new Error(`${kind} client: GetServerInfo failed: ${JSON.stringify(result).slice(0, 500)}`);
  }
  // A request still in flight at close (the legacy client's GET stream) may log its status late.
  await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    ms,
    requests,
    afterResult,
    dynamo: difference(atResult, before),
    dynamoAfter: difference(dynamoCounts(), atResult),
    discover: learned,
  };
}

/** How often each value occurs, most frequent first: "POST tools/call 200 ×30". */
function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([v, n]) => `${v} ×${n}`)
    .join("; ");
}

function range(samples: number[]): string {
  const lo = Math.min(...samples);
  const hi = Math.max(...samples);
  return lo === hi ? `${lo}` : `${lo}–${hi}`;
}

function perClient(samples: Sample[], pick: (s: Sample) => Record<string, number>): string {
  const total: Record<string, number> = {};
  for (const s of samples) for (const [op, n] of Object.entries(pick(s))) total[op] = (total[op] ?? 0) + n;
  const parts = Object.entries(total).map(([op, n]) => `${op} ${+(n / samples.length).toFixed(2)}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const clients = ctx.quick ? 3 : 30;
  const warmup = ctx.quick ? 1 : 3;
  const dynamo = await startDynalite();
  const counter = await startDynamoCounter(dynamo.endpoint);
  let offline: RunningOffline | undefined;
  try {
    offline = await startOffline(
      {
        SESSION_TABLE: dynamo.tableName,
        DYNAMODB_ENDPOINT: counter.endpoint,
        SESSIONS: "optional",
        PROMETHEUS_URL: ctx.prometheusUrl,
        PROMETHEUS_AUTH: "none",
        AMP_ENDPOINT: "",
        LOG_LEVEL: "SILENT",
      },
      undefined,
      90_000,
      ctx.root,
    );
    const url = new URL(`${offline.url}/mcp`);
    const samples: Record<Kind, Sample[]> = { modern: [], legacy: [], inline: [] };
    let discover: DiscoverResult | undefined;
    // Warm-up (the handler's cold start, its DynamoDB client, the SDK's code paths), then the clients
    // of the three kinds in turn, so that all see the same machine state.
    for (let i = 0; i < warmup + clients; i++) {
      for (const kind of KINDS) {
        const sample = await firstCall(url, kind, discover, counter.counts);
        discover ??= sample.discover;
        if (i >= warmup) samples[kind].push(sample);
      }
    }

    const requests = (kind: Kind) => samples[kind].map((s) => s.requests.length);
    const written = (kind: Kind) => samples[kind].map((s) => writes(s.dynamo));
    const times = (kind: Kind) => stats(samples[kind].map((s) => s.ms));
    const deletes = (kind: Kind) =>
      samples[kind].reduce((n, s) => n + s.afterResult.filter((r) => r.startsWith("DELETE")).length, 0);
    const sequence = (kind: Kind) => tally(samples[kind].map((s) => s.requests.join(", ")));
    const after = (kind: Kind) => tally(samples[kind].map((s) => s.afterResult.join(", ") || "nothing"));

    // Request and write counts as Stats too: their medians are what the figures report.
    const [modernRt, legacyRt, inlineRt] = KINDS.map((k) => stats(requests(k))) as [Stats, Stats, Stats];
    const [modernW, legacyW] = KINDS.map((k) => stats(written(k))) as [Stats, Stats, Stats];
    const [modernT, legacyT, inlineT] = KINDS.map(times) as [Stats, Stats, Stats];
    const base = `${clients} fresh clients per kind after ${warmup} warm-up each, SDK @modelcontextprotocol/client 2.4.0, serverless offline, SESSION_TABLE on dynalite`;
    const ms = (s: Stats) => `p50 ${s.p50.toFixed(2)} / p99 ${s.p99.toFixed(2)} ms`;

    return [
      {
        id: "first-call-round-trips",
        title:
          "first tool call from a fresh client: HTTP requests until the result, 2026-07-28 (mode auto) vs legacy handshake",
        unit: "requests",
        ours: modernRt.p50,
        baseline: { name: "legacy handshake (mode legacy)", value: legacyRt.p50 },
        ratio: legacyRt.p50 / modernRt.p50,
        target: "≤ 2 for a 2026-07-28 client (server/discover + tools/call)",
        met: Math.max(...requests("modern")) <= 2,
        note: [
          base,
          `2026-07-28 (${range(requests("modern"))}): ${sequence("modern")}`,
          `legacy (${range(requests("legacy"))}): ${sequence("legacy")}`,
          "the legacy GET is the SDK opening its server-to-client stream after notifications/initialized, not awaited: it runs beside tools/call, so the legacy client waits on 3 sequential round trips",
          `after the result (close): 2026-07-28 ${after("modern")}; legacy ${after("legacy")}; DELETE sent on close: ${deletes("modern") + deletes("legacy") + deletes("inline")}`,
        ].join("; "),
      },
      {
        id: "first-call-inline",
        title:
          "first tool call from a fresh client with a cached DiscoverResult (connect({ prior })): HTTP requests",
        unit: "requests",
        ours: inlineRt.p50,
        baseline: { name: "2026-07-28 with server/discover", value: modernRt.p50 },
        ratio: modernRt.p50 / inlineRt.p50,
        target: "1 (tools/call alone)",
        met: Math.max(...requests("inline")) === 1,
        note: `${range(requests("inline"))}: ${sequence("inline")}; wall time ${ms(inlineT)}`,
      },
      {
        id: "first-call-time",
        title:
          "first tool call from a fresh client: connect() to tool result, 2026-07-28 (mode auto) vs legacy handshake, serverless offline",
        unit: "ms",
        ours: modernT,
        baseline: { name: "legacy handshake", value: legacyT },
        ratio: legacyT.p50 / modernT.p50,
        target: "report the difference",
        met: true,
        note: `legacy − 2026-07-28 at p50: ${(legacyT.p50 - modernT.p50).toFixed(2)} ms; inline (cached DiscoverResult) ${ms(inlineT)}`,
      },
      {
        id: "first-call-dynamo-writes",
        title: "DynamoDB writes per new client (first tool call), 2026-07-28 vs legacy handshake",
        unit: "writes",
        ours: modernW.p50,
        baseline: { name: "legacy handshake", value: legacyW.p50 },
        target: "0 for a 2026-07-28 client",
        met: Math.max(...written("modern"), ...written("inline")) === 0,
        note: [
          `DynamoDB requests per client until the result: 2026-07-28 ${perClient(samples.modern, (s) => s.dynamo)}; inline ${perClient(samples.inline, (s) => s.dynamo)}; legacy ${perClient(samples.legacy, (s) => s.dynamo)}`,
          `writes per client: 2026-07-28 ${range(written("modern"))}, inline ${range(written("inline"))}, legacy ${range(written("legacy"))}`,
          `on close: 2026-07-28 ${perClient(samples.modern, (s) => s.dynamoAfter)}; legacy ${perClient(samples.legacy, (s) => s.dynamoAfter)} (legacy sessions are left to expire)`,
        ].join("; "),
      },
    ];
  } finally {
    await offline?.close();
    await counter.close();
    await dynamo.close();
  }
}
