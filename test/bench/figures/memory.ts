// Figure 7: memory of one warm container. RSS and heapUsed after gc() at checkpoints of stateless
// `tools/list` requests and of `initialize` requests (each of which starts a session).
import { httpEvent, lambdaContext } from "../../support/events.js";
import type { BenchContext, Handler } from "../context.js";
import { round } from "../measure.js";
import type { Figure } from "../report.js";

const MB = 1024 * 1024;
/** No phase may run longer than this, whatever its count. */
const PHASE_LIMIT_MS = 300_000;
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

interface Snapshot {
  requests: number;
  rss: number;
  heapUsed: number;
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the memory figure needs `node --expose-gc`");
  for (let i = 0; i < 3; i++) gc();
}

function snapshot(requests: number): Snapshot {
  collect();
  const { rss, heapUsed } = process.memoryUsage();
  return { requests, rss: rss / MB, heapUsed: heapUsed / MB };
}

/**
 * Sends `request(i)` through the handler until each checkpoint count, taking a snapshot at each.
 * Stops early (and says so in the last snapshot's count) if the phase runs out of time.
 */
async function phase(
  handler: Handler,
  checkpoints: number[],
  request: (i: number) => unknown,
  check: (result: { statusCode?: number; headers?: Record<string, string> }) => boolean,
): Promise<Snapshot[]> {
  const context = lambdaContext(60_000);
  const started = performance.now();
  const snapshots: Snapshot[] = [];
  let i = 0;
  for (const checkpoint of checkpoints) {
    for (; i < checkpoint && performance.now() - started < PHASE_LIMIT_MS; i++) {
      const result = (await handler(request(i), context)) as { statusCode?: number };
      if (!check(result))
        throw new Error(`request ${i}: unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
    }
    snapshots.push(snapshot(i));
  }
  return snapshots;
}

const mb = (x: number) => round(x, 1);
const count = (n: number) => n.toLocaleString("en-US");

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const stateless = httpEvent("v2", {
    method: "POST",
    path: "/mcp",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  // The middle checkpoint tells warm-up (young generation, optimised code) from steady growth.
  const [s1, sMid, s2] = (await phase(
    ctx.handler,
    ctx.quick ? [200, 1_000, 2_000] : [1_000, 10_000, 100_000],
    () => stateless,
    (r) => r.statusCode === 200,
  )) as [Snapshot, Snapshot, Snapshot];

  const initialize = (i: number) =>
    httpEvent("v2", {
      method: "POST",
      path: "/mcp",
      headers,
      requestId: `init-${i}`,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: `bench-${i}`, version: "1" },
        },
      }),
    });
  const [i0, i1, i2] = (await phase(
    ctx.handler,
    ctx.quick ? [0, 100, 500] : [0, 1_000, 10_000],
    initialize,
    (r) =>
      r.statusCode === 200 && Object.keys(r.headers ?? {}).some((h) => h.toLowerCase() === "mcp-session-id"),
  )) as [Snapshot, Snapshot, Snapshot];

  const statelessGrowth = s2.rss - s1.rss;
  const sessions = i2.requests - i1.requests;
  const perSessionKb = sessions > 0 ? ((i2.heapUsed - i1.heapUsed) * 1024) / sessions : Number.NaN;
  return [
    {
      id: "memory-stateless",
      title: `RSS after ${count(s2.requests)} stateless tools/list requests (after gc)`,
      unit: "MB",
      ours: mb(s2.rss),
      baseline: { name: `after ${count(s1.requests)}`, value: mb(s1.rss) },
      target: `growth < 5 MB from ${count(s1.requests)} to ${count(s2.requests)} requests`,
      met: statelessGrowth < 5,
      note:
        `growth: RSS ${mb(statelessGrowth)} MB (of which ${count(sMid.requests)} → ${count(s2.requests)}: ` +
        `${mb(s2.rss - sMid.rss)} MB), heapUsed ${mb(s2.heapUsed - s1.heapUsed)} MB (${mb(s1.heapUsed)} → ${mb(s2.heapUsed)} MB)`,
    },
    {
      id: "memory-sessions",
      title: `RSS after ${count(i2.requests)} sessions (initialize each, memory store; after gc)`,
      unit: "MB",
      ours: mb(i2.rss),
      baseline: { name: `after ${count(i1.requests)}`, value: mb(i1.rss) },
      target: "report",
      met: true,
      note:
        `from ${count(i1.requests)} to ${count(i2.requests)} sessions: RSS +${mb(i2.rss - i1.rss)} MB, ` +
        `heapUsed +${mb(i2.heapUsed - i1.heapUsed)} MB (≈ ${round(perSessionKb, 2)} KB per session; ` +
        `first ${count(i1.requests)}: heapUsed +${mb(i1.heapUsed - i0.heapUsed)} MB). The memory store keeps every ` +
        "record until it expires (in production they live in DynamoDB); warm MCP servers are capped at 64.",
    },
  ];
}
