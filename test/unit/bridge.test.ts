import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { withNotifications } from "../../src/context.js";
import { Bridge, MAX_IN_FLIGHT } from "../../src/mcp/bridge/bridge.js";
import { completeInitialize, dispatch } from "../../src/mcp/bridge/dispatch.js";
import { constantResult, replyJson } from "../../src/protocol/jsonrpc.js";
import { testContext } from "../support/context.js";
import { echoServer } from "../support/echoServer.js";
import { advance, useFakeClock, watch } from "../support/fakeClock.js";
import { makeHandler, postMcp } from "../support/handler.js";

/** How long a test waits for what the server is told (in memory, at once): a generous bound, not a figure. */
const SEEN = { timeout: 10_000 };

describe("bridge deadlines", () => {
  it("answers -32001 at the deadline instead of hanging, and cancels the request on the server", async () => {
    const aborted: string[] = [];
    const bridge = await Bridge.open(() => echoServer(aborted));
    // The tool sleeps a minute; the request has 150 ms. On a clock moved by hand: not answered a
    // millisecond before its deadline, answered -32001 at it, and the server told to stop.
    useFakeClock();
    try {
      const outcome = watch(
        dispatch(
          {
            jsonrpc: "2.0",
            id: "slow",
            method: "tools/call",
            params: { name: "sleep", arguments: { ms: 60_000 } },
          },
          { context: testContext(150), bridge: async () => bridge },
        ),
      );
      await advance(149);
      expect(outcome.settled).toBe(false);
      expect(aborted).toEqual([]);
      await advance(1);
      expect(outcome.settled).toBe(true);
      expect(await outcome.promise).toStrictEqual({
        kind: "single",
        invalid: false,
        status: 200,
        reply: {
          message: { jsonrpc: "2.0", id: "slow", error: { code: -32001, message: "Request timed out" } },
        },
      });
      expect(bridge.inFlight).toBe(0);
      await vi.waitFor(() => expect(aborted).toHaveLength(1), SEEN);
    } finally {
      vi.useRealTimers();
    }
    await bridge.close();
  });

  it("a deadline already past answers at once", async () => {
    const bridge = await Bridge.open(() => echoServer());
    const outcome = await dispatch(
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "sleep", arguments: { ms: 60_000 } } },
      { context: testContext(0), bridge: async () => bridge },
    );
    expect(outcome.kind === "single" && outcome.reply.message).toMatchObject({
      id: 7,
      error: { code: -32001 },
    });
    await bridge.close();
  });

  it("a request that finishes in time is answered normally", async () => {
    const bridge = await Bridge.open(() => echoServer());
    const outcome = await dispatch(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sleep", arguments: { ms: 5 } } },
      { context: testContext(5_000), bridge: async () => bridge },
    );
    expect(outcome.kind === "single" && outcome.reply.message).toMatchObject({
      id: 1,
      result: { content: [{ text: "slept" }] },
    });
    await bridge.close();
  });
});

describe("dispatch", () => {
  it("opens no server for payloads that need none", async () => {
    let opened = 0;
    const options = {
      context: testContext(1_000),
      bridge: async () => {
        opened++;
        return Bridge.open(() => echoServer());
      },
    };
    await dispatch({ jsonrpc: "2.0", id: null, method: "ping" }, options);
    await dispatch({ jsonrpc: "2.0", id: 1, result: {} }, options);
    await dispatch([], options);
    expect(opened).toBe(0);
  });

  it("completes partial initialize params the way the Python Lambda accepted them", () => {
    expect(
      completeInitialize({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }).params,
    ).toStrictEqual({
      protocolVersion: "2024-11-05",
      capabilities: {},
      clientInfo: { name: "unknown", version: "0" },
    });
    expect(completeInitialize({ jsonrpc: "2.0", id: 1, method: "initialize" }).params).toMatchObject({
      protocolVersion: "2024-11-05",
    });
    const full = {
      protocolVersion: "2025-06-18",
      capabilities: { roots: {} },
      clientInfo: { name: "c", version: "1" },
    };
    expect(
      completeInitialize({ jsonrpc: "2.0", id: 1, method: "initialize", params: full }).params,
    ).toStrictEqual(full);
  });

  it("answers initialize inside a batch with -32600 for that entry and serves the rest", async () => {
    const bridge = await Bridge.open(() => echoServer());
    const outcome = await dispatch(
      [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
        { jsonrpc: "2.0", id: 2, method: "ping" },
      ],
      { context: testContext(1_000), bridge: async () => bridge },
    );
    expect(outcome).toMatchObject({
      kind: "batch",
      replies: [{ message: { id: 1, error: { code: -32600 } } }, { message: { id: 2, result: {} } }],
    });
    await bridge.close();
  });
});

describe("cancellations name the caller's ids", () => {
  const sleep = (id: string | number, ms: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "sleep", arguments: { ms } },
  });
  const cancel = (requestId: unknown) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId, reason: "user" },
  });

  it("a cancellation naming no request of this caller is dropped: the server's request 1 is not hit", async () => {
    const aborted: string[] = [];
    const bridge = await Bridge.open(() => echoServer(aborted));
    // The server knows this ping-like call as private id 1; the caller's id is "a".
    const outcome = await dispatch([sleep("a", 30), cancel(1)], {
      context: testContext(5_000),
      bridge: async () => bridge,
    });
    expect(outcome).toMatchObject({
      kind: "batch",
      replies: [{ message: { id: "a", result: { content: [{ text: "slept" }] } } }],
    });
    expect(aborted).toEqual([]);
    await bridge.close();
  });

  it("a batch's cancellation answers its request at once as cancelled and aborts it on the server", async () => {
    const aborted: string[] = [];
    const bridge = await Bridge.open(() => echoServer(aborted));
    // The tool sleeps a minute and the deadline is 10 s away: -32800 says the cancellation ended it.
    const outcome = await dispatch([sleep("slow", 60_000), cancel("slow")], {
      context: testContext(10_000),
      bridge: async () => bridge,
    });
    expect(outcome).toStrictEqual({
      kind: "batch",
      replies: [
        {
          message: {
            jsonrpc: "2.0",
            id: "slow",
            error: { code: -32800, message: "Request cancelled by the client" },
          },
        },
      ],
    });
    await vi.waitFor(() => expect(aborted).toHaveLength(1), SEEN);
    await bridge.close();
  });

  it("a cancellation sent later on the same bridge (a session) reaches the request by its caller id", async () => {
    const aborted: string[] = [];
    const bridge = await Bridge.open(() => echoServer(aborted));
    const options = { context: testContext(10_000), bridge: async () => bridge };
    const pending = dispatch(sleep(42, 60_000), options);
    await vi.waitFor(() => expect(bridge.inFlight).toBe(1), SEEN);
    // Same value, other type: not the same id.
    await dispatch(cancel("42"), options);
    await dispatch(cancel(42), options);
    expect(await pending).toMatchObject({
      kind: "single",
      reply: { message: { id: 42, error: { code: -32800 } } },
    });
    await vi.waitFor(() => expect(aborted).toHaveLength(1), SEEN);
    await bridge.close();
  });
});

describe("fan-out", () => {
  it("a batch of 20 calls runs at most 8 at a time and answers in order", async () => {
    let running = 0;
    let most = 0;
    const bridge = await Bridge.open(() => {
      const server = new McpServer({ name: "count", version: "1" });
      server.registerTool("work", { inputSchema: { n: z.number() } }, async ({ n }) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return { content: [{ type: "text", text: String(n) }] };
      });
      return server;
    });
    const batch = Array.from({ length: 20 }, (_, n) => ({
      jsonrpc: "2.0",
      id: n,
      method: "tools/call",
      params: { name: "work", arguments: { n } },
    }));
    const outcome = await dispatch(batch, { context: testContext(10_000), bridge: async () => bridge });
    expect(most).toBe(MAX_IN_FLIGHT);
    expect(outcome.kind === "batch" && outcome.replies.map(({ message }) => message.id)).toEqual(
      batch.map((m) => m.id),
    );
    expect(
      outcome.kind === "batch" &&
        outcome.replies.map(
          ({ message }) =>
            (message as unknown as { result: { content: { text: string }[] } }).result.content[0]?.text,
        ),
    ).toEqual(batch.map((m) => String(m.id)));
    await bridge.close();
  });

  it("a waiting request still times out at its deadline, and a cancelled one never reaches the server", async () => {
    const aborted: string[] = [];
    const bridge = await Bridge.open(() => echoServer(aborted));
    const batch = [
      ...Array.from({ length: MAX_IN_FLIGHT }, (_, n) => ({
        jsonrpc: "2.0",
        id: n,
        method: "tools/call",
        params: { name: "sleep", arguments: { ms: 60_000 } },
      })),
      { jsonrpc: "2.0", id: "queued", method: "tools/call", params: { name: "sleep", arguments: { ms: 1 } } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "queued" } },
    ];
    const outcome = await dispatch(batch, { context: testContext(300), bridge: async () => bridge });
    const replies = outcome.kind === "batch" ? outcome.replies.map((reply) => reply.message) : [];
    expect(
      replies.slice(0, MAX_IN_FLIGHT).every((reply) => "error" in reply && reply.error.code === -32001),
    ).toBe(true);
    expect(replies[MAX_IN_FLIGHT]).toMatchObject({ id: "queued", error: { code: -32800 } });
    // The eight running ones were cancelled at the deadline; the queued one was never started.
    await vi.waitFor(() => expect(aborted).toHaveLength(MAX_IN_FLIGHT), SEEN);
    await bridge.close();
  });
});

describe("constant results", () => {
  it("a tools/list answer through the handler is the JSON of a frozen result, exactly as JSON.stringify writes it", async () => {
    const handler = makeHandler();
    const list = { jsonrpc: "2.0", id: "list-1", method: "tools/list" };
    const first = await postMcp(handler, list);
    const second = await postMcp(handler, { ...list, id: 7 });
    const reply = JSON.parse(second.body) as { id: unknown; result: unknown };
    expect(reply.id).toBe(7);
    expect(second.body).toBe(JSON.stringify({ jsonrpc: "2.0", id: 7, result: reply.result }));
    expect(first.body).toBe(JSON.stringify({ jsonrpc: "2.0", id: "list-1", result: reply.result }));
    const batch = await postMcp(handler, [list, { ...list, id: 8 }]);
    expect(batch.body).toBe(JSON.stringify(JSON.parse(batch.body)));
  });

  it("replyJson reuses a constant result's JSON and matches JSON.stringify for every reply shape", () => {
    const result = constantResult({ tools: [{ name: "a", inputSchema: { type: "object" } }] });
    expect(Object.isFrozen(result)).toBe(true);
    const replies = [
      { jsonrpc: "2.0" as const, id: 1, result },
      { jsonrpc: "2.0" as const, id: 'x"y', result },
      { jsonrpc: "2.0" as const, id: 2, result: { other: true } },
      { jsonrpc: "2.0" as const, id: 3, error: { code: -32602, message: "bad" } },
    ];
    for (const reply of replies) expect(replyJson(reply)).toBe(JSON.stringify(reply));
  });
});

describe("progress through a bridge", () => {
  const count = (id: number, times: number, progressToken?: string | number) => ({
    jsonrpc: "2.0" as const,
    id,
    method: "tools/call",
    params: {
      name: "count",
      arguments: { times },
      ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
    },
  });

  it("passes each request's progress to its own caller under the caller's token, however many share it", async () => {
    const seen: unknown[] = [];
    const bridge = await Bridge.open(() => echoServer([], seen));
    const heard = { a: [] as JSONRPCNotification[], b: [] as JSONRPCNotification[] };
    const [a, b] = await Promise.all([
      bridge.request(
        count(1, 3, "same"),
        withNotifications(testContext(), (n) => heard.a.push(n)),
      ),
      bridge.request(
        count(1, 2, "same"),
        withNotifications(testContext(), (n) => heard.b.push(n)),
      ),
    ]);
    expect(a?.message).toMatchObject({ id: 1, result: { content: [{ text: "counted 3" }] } });
    expect(b?.message).toMatchObject({ id: 1, result: { content: [{ text: "counted 2" }] } });
    const told = (notifications: JSONRPCNotification[]) =>
      notifications.map(({ method, params }) => ({ method, ...params }));
    expect(told(heard.a)).toStrictEqual(
      [1, 2, 3].map((progress) => ({
        method: "notifications/progress",
        progressToken: "same",
        progress,
        total: 3,
        message: `step ${progress}`,
      })),
    );
    expect(heard.b.map((n) => n.params?.progress)).toStrictEqual([1, 2]);
    // The server saw private tokens, one per request, never the callers'.
    expect(seen).toHaveLength(2);
    expect(new Set(seen).size).toBe(2);
    expect(seen).not.toContain("same");
    await bridge.close();
  });

  it("drops the token of a request whose progress could go nowhere: the server is not asked to make any", async () => {
    const seen: unknown[] = [];
    const bridge = await Bridge.open(() => echoServer([], seen));
    const reply = await bridge.request(count(4, 3, "unheard"), testContext());
    expect(reply.message).toMatchObject({ id: 4, result: { content: [{ text: "counted 3" }] } });
    expect(seen).toStrictEqual([undefined]);
    await bridge.close();
  });

  it("keeps a request's other _meta as it was", async () => {
    const metas: unknown[] = [];
    const server = new McpServer({ name: "meta", version: "1" });
    server.registerTool("meta", { inputSchema: {} }, async (_args, extra) => {
      metas.push(extra._meta);
      return { content: [{ type: "text", text: "ok" }] };
    });
    const bridge = await Bridge.open(() => server);
    const call = (id: number, _meta: Record<string, unknown>) => ({
      jsonrpc: "2.0" as const,
      id,
      method: "tools/call",
      params: { name: "meta", arguments: {}, _meta },
    });
    await bridge.request(call(1, { progressToken: 9, "example.com/trace": "t1" }), testContext());
    await bridge.request(
      call(2, { progressToken: 9, "example.com/trace": "t2" }),
      withNotifications(testContext(), () => undefined),
    );
    expect(metas[0]).toStrictEqual({ "example.com/trace": "t1" });
    expect(metas[1]).toMatchObject({ "example.com/trace": "t2" });
    expect((metas[1] as { progressToken: unknown }).progressToken).not.toBe(9);
    await bridge.close();
  });
});
