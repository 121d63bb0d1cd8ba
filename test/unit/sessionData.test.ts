import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Bridge } from "../../src/bridge/bridge.js";
import { completeInitialize, dispatch } from "../../src/bridge/dispatch.js";
import { createMcpServer } from "../../src/server.js";
import type { SessionManager } from "../../src/sessions/manager.js";
import { MemorySessionStore } from "../../src/sessions/memoryStore.js";
import type { SessionStore } from "../../src/sessions/store.js";
import { sessionContainer } from "../helpers/sessionContainer.js";
import { LOCAL_SETTINGS } from "../support/toolCall.js";

// A tool that keeps a counter in its session's data map.
vi.mock("../../tools/index.js", () => ({
  tools: [
    {
      name: "Count",
      description: "counts calls in this session",
      annotations: {},
      inputSchema: z.object({}),
      outputSchema: z.object({ count: z.number() }),
      run: async (_args: unknown, call: { sessionData: Record<string, unknown> }) => {
        call.sessionData.count = Number(call.sessionData.count ?? 0) + 1;
        return { count: call.sessionData.count };
      },
    },
  ],
}));

function container(store: SessionStore): SessionManager {
  return sessionContainer(store).manager;
}

async function count(manager: SessionManager, id: string): Promise<unknown> {
  const session = await manager.resume(id, undefined, Date.now() + 5_000);
  if (!session) throw new Error("session lost");
  const outcome = await dispatch(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Count", arguments: {} } },
    { deadlineAt: Date.now() + 5_000, bridge: async () => session.bridge },
  );
  await manager.persist(session);
  return outcome.kind === "single" && "result" in outcome.reply
    ? outcome.reply.result.structuredContent
    : outcome;
}

describe("session data for tools", () => {
  it("what a tool keeps in sessionData is stored with the session and survives a cold start", async () => {
    const store = new MemorySessionStore();
    const first = container(store);
    const init = completeInitialize({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    const id = (await first.initialize(init, undefined, Date.now() + 5_000)).sessionId as string;
    expect(await count(first, id)).toStrictEqual({ count: 1 });
    expect(await count(first, id)).toStrictEqual({ count: 2 });
    expect((await store.get(id))?.data).toStrictEqual({ count: 2 });
    const second = container(store);
    expect(await count(second, id)).toStrictEqual({ count: 3 });
    expect(await count(first, id)).toStrictEqual({ count: 4 });
    expect((await store.get(id))?.data).toStrictEqual({ count: 4 });
  });

  it("requests without a session get a throwaway map", async () => {
    const state = { deadlineAt: Date.now() + 5_000, data: {} };
    const bridge = await Bridge.attach(
      createMcpServer({
        settings: LOCAL_SETTINGS,
        toolFailuresAsErrors: false,
        state,
        onFault: () => undefined,
      }),
    );
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Count", arguments: {} } };
    const outcome = await dispatch(call, { deadlineAt: Date.now() + 5_000, bridge: async () => bridge });
    expect(outcome).toMatchObject({ reply: { result: { structuredContent: { count: 1 } } } });
    const fresh = await Bridge.attach(
      createMcpServer({
        settings: LOCAL_SETTINGS,
        toolFailuresAsErrors: false,
        state: { deadlineAt: state.deadlineAt, data: {} },
        onFault: () => undefined,
      }),
    );
    expect(await dispatch(call, { deadlineAt: Date.now() + 5_000, bridge: async () => fresh })).toMatchObject(
      {
        reply: { result: { structuredContent: { count: 1 } } },
      },
    );
  });
});
