// Extra latency of a session request on a fresh container (record read + server rebuilt + initialize
// replayed) over the same request on a warm one, with DynamoDB (dynalite) on loopback. Both sides
// read the record once (the warm side checks its version and expiry).
// Run: npx esbuild test/bench/rehydration.ts --bundle --platform=node --format=esm --external:dynalite \
//   --outfile=test/bench/.out.mjs --banner:js="import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" \
//   && node test/bench/.out.mjs 300
import { Bridge } from "../../src/bridge/bridge.js";
import { completeInitialize, dispatch } from "../../src/bridge/dispatch.js";
import { createMcpServer } from "../../src/server.js";
import { DynamoSessionStore } from "../../src/sessions/dynamoStore.js";
import { SessionManager } from "../../src/sessions/manager.js";
import { startDynalite } from "../support/dynalite.js";
import { LOCAL_SETTINGS } from "../support/toolCall.js";

const dynamo = await startDynalite();
// One store (one DynamoDB client) for every "container": what is measured is the rebuild, not SDK start-up.
const store = new DynamoSessionStore({
  tableName: dynamo.tableName,
  region: "us-east-1",
  endpoint: dynamo.endpoint,
});
const container = () =>
  new SessionManager({
    store,
    ttlSeconds: 3600,
    openBridge: (clock) =>
      Bridge.attach(
        createMcpServer({
          settings: LOCAL_SETTINGS,
          toolFailuresAsErrors: false,
          state: clock,
          onFault: () => {},
        }),
      ),
  });

const warm = container();
const init = completeInitialize({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18" },
});
const { sessionId } = await warm.initialize(init, undefined, Date.now() + 10_000);
const id = sessionId as string;

async function request(manager: SessionManager): Promise<void> {
  const session = await manager.resume(id, undefined, Date.now() + 10_000);
  if (!session) throw new Error("session lost");
  const outcome = await dispatch(
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { deadlineAt: Date.now() + 10_000, bridge: async () => session.bridge },
  );
  if (outcome.kind !== "single" || !("result" in outcome.reply)) throw new Error("bad reply");
}

const n = Number(process.argv[2] ?? 300);
const warmMs: number[] = [];
const coldMs: number[] = [];
for (let i = 0; i < n + 30; i++) {
  // Interleaved, so both sides see the same machine state.
  let t = performance.now();
  await request(warm);
  if (i >= 30) warmMs.push(performance.now() - t);
  const fresh = container();
  t = performance.now();
  await request(fresh);
  if (i >= 30) coldMs.push(performance.now() - t);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? Number.NaN;
console.log(
  JSON.stringify({
    figure: "session request, rehydrated vs warm (ms, DynamoDB API on loopback)",
    warm_p50: +median(warmMs).toFixed(3),
    warm_p99: +p99(warmMs).toFixed(3),
    rehydrated_p50: +median(coldMs).toFixed(3),
    rehydrated_p99: +p99(coldMs).toFixed(3),
    extra_p50: +(median(coldMs) - median(warmMs)).toFixed(3),
  }),
);
await dynamo.close();
