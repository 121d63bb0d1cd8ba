import { describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/bridge.js";
import { completeInitialize, dispatch } from "../../src/bridge/dispatch.js";
import { testContext } from "../helpers/context.js";
import { echoServer } from "../helpers/echoServer.js";

describe("bridge deadlines", () => {
  it("answers -32001 at the deadline instead of hanging, and cancels the request on the server", async () => {
    const aborted: string[] = [];
    const bridge = await Bridge.open(() => echoServer(aborted));
    const started = Date.now();
    const outcome = await dispatch(
      {
        jsonrpc: "2.0",
        id: "slow",
        method: "tools/call",
        params: { name: "sleep", arguments: { ms: 60_000 } },
      },
      { context: testContext(150), bridge: async () => bridge },
    );
    const elapsed = Date.now() - started;
    expect(outcome).toStrictEqual({
      kind: "single",
      invalid: false,
      reply: { jsonrpc: "2.0", id: "slow", error: { code: -32001, message: "Request timed out" } },
    });
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(5_000);
    expect(bridge.inFlight).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(aborted).toHaveLength(1);
    await bridge.close();
  });

  it("a deadline already past answers at once", async () => {
    const bridge = await Bridge.open(() => echoServer());
    const outcome = await dispatch(
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "sleep", arguments: { ms: 60_000 } } },
      { context: testContext(0), bridge: async () => bridge },
    );
    expect(outcome.kind === "single" && outcome.reply).toMatchObject({ id: 7, error: { code: -32001 } });
    await bridge.close();
  });

  it("a request that finishes in time is answered normally", async () => {
    const bridge = await Bridge.open(() => echoServer());
    const outcome = await dispatch(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sleep", arguments: { ms: 5 } } },
      { context: testContext(5_000), bridge: async () => bridge },
    );
    expect(outcome.kind === "single" && outcome.reply).toMatchObject({
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
      replies: [
        { id: 1, error: { code: -32600 } },
        { id: 2, result: {} },
      ],
    });
    await bridge.close();
  });
});
