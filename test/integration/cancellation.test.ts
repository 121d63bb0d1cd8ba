import { createServer, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { waitUntil } from "../support/fakeClock.js";
import { header, JSON_HEADERS, makeHandler, postMcp } from "../support/handler.js";
import { closeServer, listenLoopback } from "../support/net.js";

const CANCELLED = { code: -32800, message: "Request cancelled by the client" };
const query = (id: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "ExecuteQuery", arguments: { query: "up" } },
});
const cancel = (requestId: string) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "user" },
});

describe("a caller's cancellation, through the handler", () => {
  const received: string[] = [];
  const closed: string[] = [];
  // A Prometheus that never answers: only a cancellation can end a call early.
  const prometheus = createServer((request: IncomingMessage) => {
    received.push(request.url ?? "");
    request.socket.once("close", () => closed.push(request.url ?? ""));
  });
  let url: string;

  beforeAll(async () => {
    url = await listenLoopback(prometheus);
  });
  afterAll(async () => {
    await closeServer(prometheus);
  });

  it("in a session, a later cancellation answers the running call at once and aborts its Prometheus request", async () => {
    received.length = 0;
    closed.length = 0;
    const handler = makeHandler({ PROMETHEUS_URL: url, PROMETHEUS_AUTH: "none" });
    const init = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const headers = { ...JSON_HEADERS, "mcp-session-id": header(init, "mcp-session-id") ?? "" };
    await postMcp(handler, { jsonrpc: "2.0", method: "notifications/initialized" }, "v2", headers);

    const running = postMcp(handler, query("q"), "v2", headers);
    await waitUntil(() => received.length === 1, "the call reaching Prometheus");
    const cancelled = await postMcp(handler, cancel("q"), "v2", headers);
    expect(cancelled.statusCode).toBe(202);
    // Cancelled, not answered at its deadline (-32001, 29.5 s away): what happened, not how soon.
    const answer = await running;
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: "2.0", id: "q", error: CANCELLED });
    await waitUntil(() => closed.length === 1, "Prometheus seeing the call's connection closed");
    expect(closed).toEqual(received);
  });

  it("in a batch, the cancelled call is answered at once, leaves no Prometheus request open, logs no fault", async () => {
    received.length = 0;
    closed.length = 0;
    const logged: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation(((chunk: unknown) => {
      logged.push(String(chunk));
      return true;
    }) as typeof process.stdout.write);
    const handler = makeHandler({ PROMETHEUS_URL: url, PROMETHEUS_AUTH: "none", LOG_LEVEL: "WARN" });
    const http = await postMcp(handler, [query("q"), cancel("q")]);
    vi.restoreAllMocks();
    // The server may start the cancelled call after it was answered: that is no fault of the server.
    expect(logged.filter((line) => line.includes('"level":"ERROR"'))).toEqual([]);
    expect(JSON.parse(http.body)).toEqual([{ jsonrpc: "2.0", id: "q", error: CANCELLED }]);
    await waitUntil(
      () => closed.length === received.length,
      "Prometheus seeing every call's connection closed",
    );
    expect(closed).toEqual(received);
  });
});
