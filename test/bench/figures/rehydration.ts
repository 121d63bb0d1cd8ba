// Figure 6: a session request on a fresh container (record read + server rebuilt + initialize
// replayed) against the same request on a warm one, DynamoDB API (dynalite) on loopback. Both sides
// read the record once: the warm side checks its version and expiry.
import { completeInitialize, dispatch } from "../../../src/mcp/bridge/dispatch.js";
import { DynamoSessionStore } from "../../../src/sessions/dynamoStore.js";
import type { SessionManager } from "../../../src/sessions/manager.js";
import { testContext } from "../../support/context.js";
import { startDynalite } from "../../support/dynalite.js";
import { localServerFactory, sessionContainer } from "../../support/sessionContainer.js";
import type { BenchContext } from "../context.js";
import { interleave } from "../measure.js";
import type { Figure } from "../report.js";

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const dynamo = await startDynalite();
  try {
    // One store (one DynamoDB client) for every "container": what is measured is the rebuild, not SDK start-up.
    const store = new DynamoSessionStore({
      tableName: dynamo.tableName,
      region: "us-east-1",
      endpoint: dynamo.endpoint,
    });
    // Likewise one server factory: its validator and tool list are built once per handler, at its cold start.
    const makeServer = localServerFactory();
    const container = () => sessionContainer(store, { ttlSeconds: 3600 }, makeServer).manager;
    const warm = container();
    const init = completeInitialize({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18" },
    });
    const id = (await warm.initialize(init, testContext(10_000))).sessionId as string;
    const request = async (manager: SessionManager) => {
      const session = await manager.resume(id, testContext(10_000));
      if (!session) throw new Error("session lost");
      const outcome = await dispatch(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { context: testContext(10_000), bridge: async () => session.bridge },
      );
      if (outcome.kind !== "single" || !("result" in outcome.reply.message)) throw new Error("bad reply");
    };
    const [rehydrated, warmStats] = await interleave(
      () => request(container()),
      () => request(warm),
      ctx.quick ? 20 : 1_000,
      ctx.quick ? 5 : 30,
    );
    return [
      {
        id: "rehydration",
        title: "Session request on a fresh container (rehydrated) vs warm, DynamoDB API on loopback",
        unit: "ms",
        ours: rehydrated,
        baseline: { name: "same request, warm container", value: warmStats },
        target: "report the difference",
        met: true,
        note: `extra latency of rehydration: ${(rehydrated.p50 - warmStats.p50).toFixed(3)} ms at p50`,
      },
    ];
  } finally {
    await dynamo.close();
  }
}
