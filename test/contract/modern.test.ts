import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { INLINE_SIZE_KEY, MAX_DECLARED_CHARS } from "../../src/results/inlineSize.js";
import { EVENT_FORMATS, lambdaContext } from "../support/events.js";
import { callHttp, type Handler, header, JSON_HEADERS, makeHandler } from "../support/handler.js";
import { closeServer, listenLoopback } from "../support/net.js";
import { PLAIN_TOOL_INTERFACE } from "../support/toolInterface.js";

// The 2026-07-28 revision on this transport, row by row, for every event format: no handshake, no
// sessions, every request self-describing in `_meta` and mirrored in headers.

const MODERN = "2026-07-28";
const SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const SERVER_INFO = { name: "prometheus-mcp-lambda", version: packageJson.version };
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

const envelope = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "contract", version: "1.0.0" },
  ...extra,
});

function request(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope() } };
}

/** The headers an honest 2026-07-28 client sends with `body`. */
function headersFor(body: { method: string; params?: Record<string, unknown> }): Record<string, string> {
  const headers: Record<string, string> = {
    ...JSON_HEADERS,
    "mcp-protocol-version": MODERN,
    "mcp-method": body.method,
  };
  if (body.method === "tools/call" && typeof body.params?.name === "string")
    headers["mcp-name"] = body.params.name;
  return headers;
}

async function post(
  handler: Handler,
  body: unknown,
  format: (typeof EVENT_FORMATS)[number],
  headers: Record<string, string | undefined>,
) {
  const defined = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
  const result = await callHttp(
    handler,
    { method: "POST", path: "/mcp", headers: defined as Record<string, string>, body: JSON.stringify(body) },
    format,
  );
  return { ...result, json: result.body === "" ? undefined : JSON.parse(result.body) };
}

/** A server that accepts connections and never answers: a Prometheus that hangs. */
let silent: Server;
let silentUrl: string;
beforeAll(async () => {
  silent = createServer(() => undefined);
  silentUrl = await listenLoopback(silent);
});
afterAll(() => closeServer(silent));

describe.each(EVENT_FORMATS)("MCP 2026-07-28, %s events", (format) => {
  let handler: Handler;
  beforeAll(() => {
    // SESSIONS=required: a 2026-07-28 request needs no session, and is never given one.
    handler = makeHandler({ PROMETHEUS_URL: silentUrl, PROMETHEUS_AUTH: "none", SESSIONS: "required" });
  });

  const send = (body: ReturnType<typeof request>, overrides: Record<string, string | undefined> = {}) =>
    post(handler, body, format, { ...headersFor(body), ...overrides });

  it("server/discover: both eras' versions, capabilities, instructions, cache hints, server info", async () => {
    const result = await send(request("d-1", "server/discover"));
    expect(result.statusCode).toBe(200);
    expect(header(result, "Content-Type")).toBe("application/json");
    expect(header(result, "Mcp-Session-Id")).toBeUndefined();
    expect(result.json).toStrictEqual({
      jsonrpc: "2.0",
      id: "d-1",
      result: {
        resultType: "complete",
        supportedVersions: SUPPORTED,
        // The chart view (MCP Apps) comes with the default tools: resources, and the extension.
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: false, listChanged: false },
          extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
        },
        // A plain Prometheus: the server, not workspaces.
        instructions: expect.stringMatching(
          /^Investigate the Prometheus server these tools query\.(?!.*[Ww]orkspace)/,
        ),
        ttlMs: 3_600_000,
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
      },
    });
  });

  it("tools/list: the legacy era's tools, with resultType, cache hints and server info", async () => {
    const modern = await send(request(2, "tools/list"));
    expect(modern.statusCode).toBe(200);
    expect(header(modern, "Mcp-Session-Id")).toBeUndefined();
    const { tools, resultType, ttlMs, cacheScope, _meta } = modern.json.result;
    expect({ resultType, ttlMs, cacheScope, _meta }).toStrictEqual({
      resultType: "complete",
      ttlMs: 3_600_000,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    });
    expect(tools.map((tool: { name: string }) => tool.name)).toStrictEqual(Object.keys(PLAIN_TOOL_INTERFACE));
    // Claude Code keeps results inline up to what each tool declares (src/results/inlineSize.ts).
    for (const tool of tools as Array<{ _meta?: Record<string, unknown> }>)
      expect(tool._meta?.[INLINE_SIZE_KEY]).toBe(MAX_DECLARED_CHARS);
  });

  it("tools/call: the tool's result, completed (no cache hints: a call is not cacheable)", async () => {
    const result = await send(request(3, "tools/call", { name: "GetServerInfo", arguments: {} }));
    expect(result.statusCode).toBe(200);
    expect(header(result, "Mcp-Session-Id")).toBeUndefined();
    expect(result.json.result).toMatchObject({
      resultType: "complete",
      structuredContent: { prometheus_url: silentUrl, service_name: "aps" },
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    });
    expect(result.json.result).not.toHaveProperty("ttlMs");
    expect(JSON.parse(result.json.result.content[0].text)).toStrictEqual(
      result.json.result.structuredContent,
    );
  });

  it("a tool name in base64 sentinel form (=?base64?…?=) is decoded before comparing; whitespace around a value is not part of it", async () => {
    const body = request(4, "tools/call", { name: "GetServerInfo", arguments: {} });
    const encoded = `=?base64?${Buffer.from("GetServerInfo").toString("base64")}?=`;
    expect((await send(body, { "mcp-name": encoded })).statusCode).toBe(200);
    expect((await send(body, { "mcp-name": "  GetServerInfo\t" })).statusCode).toBe(200);
  });

  it("a method named like an object's own members (constructor, __proto__) is just an unknown method: 404", async () => {
    for (const method of ["constructor", "__proto__", "toString"]) {
      const result = await send(request(1, method), { "mcp-name": "x" });
      expect(result.statusCode, method).toBe(404);
      expect(result.json.error.code, method).toBe(-32601);
    }
  });

  it("a base64 name keeps a leading byte-order mark, as the client encoded it", async () => {
    const body = request(1, "tools/call", { name: "\ufeffGetServerInfo", arguments: {} });
    const result = await send(body, {
      "mcp-name": `=?base64?${Buffer.from("\ufeffGetServerInfo").toString("base64")}?=`,
    });
    expect(result.statusCode).toBe(200);
    expect(result.json.error.code).toBe(-32602); // past the header check: no tool has that name
  });

  it("a tool name that is not header-safe travels base64-encoded, and is then checked like any other", async () => {
    const body = request(5, "tools/call", { name: "Wetter für Köln", arguments: {} });
    const encoded = `=?base64?${Buffer.from("Wetter für Köln").toString("base64")}?=`;
    const served = await send(body, { "mcp-name": encoded });
    expect(served.statusCode).toBe(200);
    expect(served.json.error.code).toBe(-32602); // no such tool: answered in-band, past the header checks
    const wrong = await send(body, { "mcp-name": `=?base64?${Buffer.from("Wetter").toString("base64")}?=` });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json.error.code).toBe(-32020);
  });

  describe("header disagreements: 400, -32020 HeaderMismatch, naming the header, the id echoed", () => {
    const call = request(6, "tools/call", { name: "GetServerInfo", arguments: {} });
    const cases: [string, ReturnType<typeof request>, Record<string, string | undefined>, RegExp][] = [
      [
        "Mcp-Method missing",
        request(6, "tools/list"),
        { "mcp-method": undefined },
        /Mcp-Method header is required/,
      ],
      [
        "Mcp-Method differs",
        request(6, "tools/list"),
        { "mcp-method": "prompts/list" },
        /Mcp-Method header value 'prompts\/list'/,
      ],
      ["Mcp-Method in another case", request(6, "tools/list"), { "mcp-method": "TOOLS/LIST" }, /Mcp-Method/],
      ["Mcp-Name missing on tools/call", call, { "mcp-name": undefined }, /Mcp-Name header is required/],
      ["Mcp-Name differs", call, { "mcp-name": "ExecuteQuery" }, /Mcp-Name header value 'ExecuteQuery'/],
      [
        "Mcp-Name with broken base64",
        call,
        { "mcp-name": "=?base64?R2V0U2VydmVy$W5mbw==?=" },
        /Mcp-Name header is malformed/,
      ],
      [
        "Mcp-Name with non-UTF-8 base64",
        call,
        { "mcp-name": "=?base64?/w==?=" },
        /Mcp-Name header is malformed/,
      ],
      [
        "MCP-Protocol-Version missing",
        call,
        { "mcp-protocol-version": undefined },
        /MCP-Protocol-Version header is required/,
      ],
      [
        "MCP-Protocol-Version differs from _meta",
        call,
        { "mcp-protocol-version": "2025-11-25" },
        /does not match _meta protocol version '2026-07-28'/,
      ],
    ];
    for (const [name, body, overrides, message] of cases) {
      it(name, async () => {
        const result = await send(body, overrides);
        expect(result.statusCode).toBe(400);
        expect(result.json).toStrictEqual({
          jsonrpc: "2.0",
          id: 6,
          error: { code: -32020, message: expect.stringMatching(message) },
        });
      });
    }
  });

  it("a version nobody serves: 400, -32022 with the versions served (as discover lists them) and the one asked for", async () => {
    const body = {
      ...request(7, "tools/list"),
      params: { _meta: envelope({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }) },
    };
    const result = await send(body, { "mcp-protocol-version": "2099-01-01" });
    expect(result.statusCode).toBe(400);
    expect(result.json).toStrictEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: SUPPORTED, requested: "2099-01-01" },
      },
    });
  });

  describe("the _meta envelope: required fields missing or malformed are 400 -32602; clientInfo is optional", () => {
    const without = (key: string) => {
      const meta: Record<string, unknown> = envelope();
      delete meta[key];
      return meta;
    };
    const cases: [string, Record<string, unknown> | undefined, RegExp][] = [
      ["no _meta at all", undefined, /params\._meta is required/],
      [
        "no protocol version",
        without("io.modelcontextprotocol/protocolVersion"),
        /protocolVersion"\] is required/,
      ],
      [
        "no client capabilities",
        without("io.modelcontextprotocol/clientCapabilities"),
        /clientCapabilities"\] is required/,
      ],
      [
        "client capabilities not an object",
        envelope({ "io.modelcontextprotocol/clientCapabilities": [] }),
        /clientCapabilities/,
      ],
      [
        "client info without a version",
        envelope({ "io.modelcontextprotocol/clientInfo": { name: "x" } }),
        /clientInfo/,
      ],
      [
        "an unknown log level",
        envelope({ "io.modelcontextprotocol/logLevel": "verbose" }),
        /logLevel"\] must be one of debug/,
      ],
    ];
    for (const [name, meta, message] of cases) {
      it(name, async () => {
        const body = {
          jsonrpc: "2.0",
          id: 8,
          method: "tools/list",
          params: meta === undefined ? {} : { _meta: meta },
        };
        const result = await post(handler, body, format, headersFor(body));
        expect(result.statusCode).toBe(400);
        expect(result.json).toStrictEqual({
          jsonrpc: "2.0",
          id: 8,
          error: { code: -32602, message: expect.stringMatching(message) },
        });
      });
    }

    it("without clientInfo, and with a log level, a request is served (one JSON answer: no log notifications)", async () => {
      const body = {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/list",
        params: { _meta: without("io.modelcontextprotocol/clientInfo") },
      };
      expect((await post(handler, body, format, headersFor(body))).statusCode).toBe(200);
      const leveled = {
        ...body,
        params: { _meta: envelope({ "io.modelcontextprotocol/logLevel": "debug" }) },
      };
      const result = await post(handler, leveled, format, headersFor(leveled));
      expect(result.statusCode).toBe(200);
      expect(header(result, "Content-Type")).toBe("application/json");
      expect(result.json.result.tools).toHaveLength(Object.keys(PLAIN_TOOL_INTERFACE).length);
    });
  });

  it("a method this server does not implement, and the legacy methods 2026-07-28 removed: 404 -32601", async () => {
    for (const method of [
      "prompts/list",
      "completion/complete",
      "unknown/method",
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
    ]) {
      const result = await send(request(`m-${method}`, method));
      expect(result.statusCode, method).toBe(404);
      expect(result.json, method).toStrictEqual({
        jsonrpc: "2.0",
        id: `m-${method}`,
        error: { code: -32601, message: expect.stringContaining(`Method not found: ${method}`) },
      });
    }
  });

  it("a batch is refused: 400 -32600 (one message per POST)", async () => {
    const result = await post(
      handler,
      [request(10, "tools/list")],
      format,
      headersFor(request(10, "tools/list")),
    );
    expect(result.statusCode).toBe(400);
    expect(result.json.error).toStrictEqual({
      code: -32600,
      message: expect.stringContaining("not a batch"),
    });
  });

  it("a batch with a 2026-07-28 element is refused even without the version header", async () => {
    const result = await post(
      handler,
      [{ jsonrpc: "2.0", id: 1, method: "ping" }, request(10, "tools/list")],
      format,
      JSON_HEADERS,
    );
    expect(result.statusCode).toBe(400);
    expect(result.json.error.code).toBe(-32600);
  });

  it("a notification: 202, empty body", async () => {
    const result = await post(
      handler,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: envelope() } },
      format,
      { ...JSON_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "notifications/cancelled" },
    );
    expect(result.statusCode).toBe(202);
    expect(result.body).toBe("");
    expect(header(result, "Content-Type")).toBeUndefined();
  });

  it("a body that is not JSON, under the 2026-07-28 header: 400 -32700", async () => {
    const result = await callHttp(
      handler,
      {
        method: "POST",
        path: "/mcp",
        headers: { ...JSON_HEADERS, "mcp-protocol-version": MODERN },
        body: "{",
      },
      format,
    );
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).error.code).toBe(-32700);
  });

  it("an Mcp-Session-Id is ignored: no session is looked up (none exists), none is issued", async () => {
    const result = await send(request(11, "tools/list"), {
      "mcp-session-id": "00000000-0000-4000-8000-000000000000",
    });
    expect(result.statusCode).toBe(200);
    expect(header(result, "Mcp-Session-Id")).toBeUndefined();
  });

  it("a Prometheus that does not answer: -32001 at the deadline, HTTP 200, as in the legacy era", async () => {
    const body = request(12, "tools/call", { name: "ExecuteQuery", arguments: { query: "up" } });
    const result = await callHttp(
      handler,
      { method: "POST", path: "/mcp", headers: headersFor(body), body: JSON.stringify(body) },
      format,
      1_200,
    );
    expect(result.statusCode).toBe(200);
    const reply = JSON.parse(result.body);
    // Either the tool's own timeout (a tool error) or the request's: never a hang, never a 5xx.
    if ("error" in reply) expect(reply.error.code).toBe(-32001);
    else expect(reply.result).toMatchObject({ isError: true, resultType: "complete" });
  });
});

describe("the legacy era beside it", () => {
  it("serves the same tool list; results carry no 2026-07-28 fields", async () => {
    const handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
    const modernBody = request(1, "tools/list");
    const modern = await post(handler, modernBody, "v2", headersFor(modernBody));
    const legacy = await post(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" }, "v2", {
      ...JSON_HEADERS,
      "mcp-protocol-version": "2025-11-25",
    });
    expect(legacy.json.result.tools).toStrictEqual(modern.json.result.tools);
    expect(legacy.json.result).not.toHaveProperty("resultType");
    expect(legacy.json.result).not.toHaveProperty("_meta");
  });

  it("2024-10-07 (never a published revision) is not accepted: a header naming it is 400 -32600, an initialize asking for it gets 2025-11-25", async () => {
    const handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
    const refused = await post(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" }, "v2", {
      ...JSON_HEADERS,
      "mcp-protocol-version": "2024-10-07",
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining(SUPPORTED.join(", ")),
    });
    const initialize = {
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2024-10-07", capabilities: {}, clientInfo: { name: "old", version: "0" } },
    };
    const answered = await post(handler, initialize, "v2", JSON_HEADERS);
    expect(answered.json.result.protocolVersion).toBe("2025-11-25");
  });

  it("an initialize asking for 2026-07-28 (which has none) gets the latest legacy revision", async () => {
    const handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: "x", version: "0" } },
    };
    const answered = await post(handler, initialize, "v2", JSON_HEADERS);
    expect(answered.statusCode).toBe(200);
    expect(answered.json.result.protocolVersion).toBe("2025-11-25");
    expect(header(answered, "Mcp-Session-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("PYTHON_COMPAT is for the Python Lambda's clients: a 2026-07-28 client gets the spec's answers", () => {
  it("a failed tool call is a result with isError, not a -32603 error", async () => {
    const handler = makeHandler({
      PROMETHEUS_URL: "http://127.0.0.1:1",
      PROMETHEUS_AUTH: "none",
      PYTHON_COMPAT: "true",
    });
    const body = request(1, "tools/call", { name: "ExecuteQuery", arguments: {} });
    const modern = await post(handler, body, "v2", headersFor(body));
    expect(modern.statusCode).toBe(200);
    expect(modern.json.result).toMatchObject({ isError: true, resultType: "complete" });
    const legacy = await post(
      handler,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ExecuteQuery", arguments: {} } },
      "v2",
      JSON_HEADERS,
    );
    expect(legacy.json.error.message).toMatch(/^Tool execution failed: Error executing tool ExecuteQuery/);
  });
});

describe("direct invocations claiming 2026-07-28 (no headers to check)", () => {
  it("server/discover and tools/call are answered as JSON-RPC objects; unknown methods are -32601", async () => {
    const handler = makeHandler({ PROMETHEUS_URL: "http://127.0.0.1:1", PROMETHEUS_AUTH: "none" });
    const discover = (await handler(request(1, "server/discover"), lambdaContext())) as {
      result: { supportedVersions: string[]; resultType: string };
    };
    expect(discover.result).toMatchObject({ resultType: "complete", supportedVersions: SUPPORTED });
    const called = (await handler(
      request(2, "tools/call", { name: "GetServerInfo", arguments: {} }),
      lambdaContext(),
    )) as {
      result: Record<string, unknown>;
    };
    expect(called.result).toMatchObject({
      resultType: "complete",
      structuredContent: { service_name: "aps" },
    });
    expect(await handler(request(3, "ping"), lambdaContext())).toMatchObject({
      id: 3,
      error: { code: -32601 },
    });
    expect(
      await handler({ ...request(4, "tools/list"), params: {}, jsonrpc: "2.0" }, lambdaContext()),
    ).toMatchObject({
      result: { tools: expect.any(Array) },
    }); // no envelope: a legacy invocation, served as before
  });
});

describe("the request log line", () => {
  afterEach(() => vi.restoreAllMocks());

  it("names the era, the client and the trace id of a W3C traceparent in _meta; a malformed one is ignored", async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation(((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stdout.write);
    const handler = makeHandler({
      LOG_LEVEL: "INFO",
      PROMETHEUS_URL: "http://127.0.0.1:1",
      PROMETHEUS_AUTH: "none",
    });
    const traced = {
      ...request(1, "tools/list"),
      params: { _meta: envelope({ traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` }) },
    };
    await post(handler, traced, "v2", headersFor(traced));
    const malformed = { ...traced, params: { _meta: envelope({ traceparent: "00-xyz-01" }) } };
    await post(handler, malformed, "v2", headersFor(malformed));
    await post(handler, { jsonrpc: "2.0", id: 3, method: "tools/list" }, "v2", JSON_HEADERS);
    const entries = lines
      .join("")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({
      message: "request",
      era: "modern",
      trace_id: TRACE_ID,
      client: "contract/1.0.0",
      status: 200,
    });
    expect(entries[1]).toMatchObject({ era: "modern" });
    expect(entries[1]).not.toHaveProperty("trace_id");
    expect(entries[2]).toMatchObject({ era: "legacy" });
  });
});
