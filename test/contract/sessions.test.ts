import { describe, expect, it } from "vitest";
import { EVENT_FORMATS } from "../support/events.js";
import { callHttp, type HttpResult, header, JSON_HEADERS, makeHandler } from "../support/handler.js";
import { TOOL_INTERFACE } from "../support/toolInterface.js";

type Handler = Awaited<ReturnType<typeof makeHandler>>;

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const toolsList = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function post(
  handler: Handler,
  body: unknown,
  sessionId?: string,
  format: (typeof EVENT_FORMATS)[number] = "v2",
  principal?: string,
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
  return callHttp(
    handler,
    { method: "POST", path: "/mcp", headers, body: JSON.stringify(body), principal },
    format,
  );
}

function remove(handler: Handler, sessionId?: string, principal?: string): Promise<HttpResult> {
  const headers: Record<string, string> = sessionId === undefined ? {} : { "mcp-session-id": sessionId };
  return callHttp(handler, { method: "DELETE", path: "/mcp", headers, principal });
}

async function open(handler: Handler, principal?: string): Promise<string> {
  const result = await post(handler, initialize, undefined, "v2", principal);
  expect(result.statusCode).toBe(200);
  const id = header(result, "Mcp-Session-Id");
  expect(id).toMatch(UUID);
  return id as string;
}

describe("sessions (memory store, SESSIONS=optional)", () => {
  for (const format of EVENT_FORMATS) {
    it(`initialize creates a session; its id is returned and continues it (${format})`, async () => {
      const handler = makeHandler();
      const initialized = await post(handler, initialize, undefined, format);
      const id = header(initialized, "Mcp-Session-Id") as string;
      expect(id).toMatch(UUID);
      expect(JSON.parse(initialized.body).result.protocolVersion).toBe("2025-06-18");
      const notified = await post(
        handler,
        { jsonrpc: "2.0", method: "notifications/initialized" },
        id,
        format,
      );
      expect(notified.statusCode).toBe(202);
      expect(header(notified, "Mcp-Session-Id")).toBe(id);
      const listed = await post(handler, toolsList, id, format);
      expect(listed.statusCode).toBe(200);
      expect(header(listed, "Mcp-Session-Id")).toBe(id);
      expect(JSON.parse(listed.body).result.tools).toHaveLength(Object.keys(TOOL_INTERFACE).length);
    });
  }

  it("each initialize gets its own session id", async () => {
    const handler = makeHandler();
    const ids = new Set(await Promise.all(Array.from({ length: 20 }, () => open(handler))));
    expect(ids.size).toBe(20);
  });

  it("requests without a session id stay stateless and carry no session header", async () => {
    const handler = makeHandler();
    const result = await post(handler, toolsList);
    expect(result.statusCode).toBe(200);
    expect(header(result, "Mcp-Session-Id")).toBeUndefined();
  });

  it("an unknown session id is 404 -32001 Session not found", async () => {
    const handler = makeHandler();
    const result = await post(handler, toolsList, "5f0c1b2a-0000-4000-8000-000000000000");
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: "Session not found" },
    });
  });

  it("a malformed session id is 400 before any store access", async () => {
    const handler = makeHandler();
    for (const bad of ["has space", "tab\there", "é-accent", "x".repeat(129)]) {
      const result = await post(handler, toolsList, bad);
      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toMatchObject({ error: { code: -32600 } });
    }
    expect((await remove(handler, "has space")).statusCode).toBe(400);
  });

  it("initialize carrying a session id is 400", async () => {
    const handler = makeHandler();
    const id = await open(handler);
    expect((await post(handler, initialize, id)).statusCode).toBe(400);
  });

  it("DELETE ends the session (204), after which it is 404 everywhere", async () => {
    const handler = makeHandler();
    const id = await open(handler);
    const ended = await remove(handler, id);
    expect(ended.statusCode).toBe(204);
    expect(ended.body).toBe("");
    expect((await post(handler, toolsList, id)).statusCode).toBe(404);
    expect((await remove(handler, id)).statusCode).toBe(404);
  });

  it("DELETE without an id is 400; with an unknown id 404", async () => {
    const handler = makeHandler();
    expect((await remove(handler)).statusCode).toBe(400);
    const unknown = await remove(handler, "5f0c1b2a-0000-4000-8000-000000000000");
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: -32001, message: "Session not found" } });
  });

  it("a failed initialize creates no session", async () => {
    const handler = makeHandler();
    const result = await post(handler, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 7 },
    });
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: -32602 } });
    expect(header(result, "Mcp-Session-Id")).toBeUndefined();
  });

  it("a session is bound to the principal that created it", async () => {
    const handler = makeHandler();
    const alice = "arn:aws:iam::123456789012:user/alice";
    const bob = "arn:aws:iam::123456789012:user/bob";
    const id = await open(handler, alice);
    expect((await post(handler, toolsList, id, "v2", bob)).statusCode).toBe(404);
    expect((await post(handler, toolsList, id, "v1", bob)).statusCode).toBe(404);
    expect((await post(handler, toolsList, id)).statusCode).toBe(404);
    expect((await remove(handler, id, bob)).statusCode).toBe(404);
    expect((await post(handler, toolsList, id, "v2", alice)).statusCode).toBe(200);
    expect((await post(handler, toolsList, id, "v1", alice)).statusCode).toBe(200);
    expect((await remove(handler, id, alice)).statusCode).toBe(204);
  });

  it("an expired session is 404 (expiry checked by the application)", async () => {
    const handler = makeHandler({ SESSION_TTL_SECONDS: "1" });
    const id = await open(handler);
    expect((await post(handler, toolsList, id)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await post(handler, toolsList, id)).statusCode).toBe(404);
  });
});

describe("SESSIONS=required", () => {
  it("refuses a request without a session id with 400, but initialize creates one", async () => {
    const handler = makeHandler({ SESSIONS: "required" });
    const refused = await post(handler, toolsList);
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error.message).toMatch(/Mcp-Session-Id/);
    const id = await open(handler);
    expect((await post(handler, toolsList, id)).statusCode).toBe(200);
  });
});

describe("SESSIONS=off", () => {
  it("initialize creates no session, a session header is ignored, and DELETE is 405", async () => {
    const handler = makeHandler({ SESSIONS: "off" });
    const initialized = await post(handler, initialize);
    expect(initialized.statusCode).toBe(200);
    expect(header(initialized, "Mcp-Session-Id")).toBeUndefined();
    expect((await post(handler, toolsList, "5f0c1b2a-0000-4000-8000-000000000000")).statusCode).toBe(200);
    const deleted = await remove(handler, "5f0c1b2a-0000-4000-8000-000000000000");
    expect(deleted.statusCode).toBe(405);
    expect(header(deleted, "Allow")).toBe("POST, OPTIONS");
  });
});
