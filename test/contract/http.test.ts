import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import packageJson from "../../package.json" with { type: "json" };
import { defineTool, type Tool, ToolError } from "../../tools/types.js";
import { EVENT_FORMATS, type EventFormat, httpEvent, lambdaContext } from "../support/events.js";
import { advance, useFakeClock, watch } from "../support/fakeClock.js";
import {
  callHttp,
  ENTRY,
  header,
  JSON_HEADERS,
  makeHandler,
  makeHandlerCapturingServers,
  postMcp,
} from "../support/handler.js";
import { ignores } from "../support/logLevel.js";
import { closeServer, listenLoopback } from "../support/net.js";
import { CORE_TOOLS, PLAIN_TOOL_INTERFACE } from "../support/toolInterface.js";

type Handler = Awaited<ReturnType<typeof makeHandler>>;

const BODY_LIMIT = 8192;

const ping = (id: string | number = 1) => ({ jsonrpc: "2.0", id, method: "ping" });
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
const callTool = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** A server that accepts connections and never answers: a Prometheus that hangs. */
let silent: Server;
let silentUrl: string;
beforeAll(async () => {
  silent = createServer(() => undefined);
  silentUrl = await listenLoopback(silent);
});
afterAll(() => closeServer(silent));

for (const pythonCompat of [false, true]) {
  const mode = pythonCompat ? "PYTHON_COMPAT=true" : "default (spec) mode";

  describe(`HTTP contract, ${mode}`, () => {
    let handler: Handler;
    beforeAll(async () => {
      handler = makeHandler({
        PYTHON_COMPAT: String(pythonCompat),
        PROMETHEUS_URL: silentUrl,
        PROMETHEUS_AUTH: "none",
        ALLOWED_ORIGINS: "https://app.example.com",
        MAX_BODY_BYTES: String(BODY_LIMIT),
      });
    });

    for (const format of EVENT_FORMATS) {
      describe(`${format} events`, () => {
        it("GET /health answers 200 with status, service, package version and an ISO timestamp", async () => {
          const result = await callHttp(handler, { method: "GET", path: "/health" }, format);
          expect(result.statusCode).toBe(200);
          expect(header(result, "Content-Type")).toBe("application/json");
          const body = JSON.parse(result.body);
          expect(body).toStrictEqual({
            status: "healthy",
            service: "prometheus-mcp-lambda",
            version: packageJson.version,
            timestamp: expect.any(String),
          });
          expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
        });

        it("GET /mcp is 405 with Allow (no server-initiated stream on Lambda)", async () => {
          const result = await callHttp(
            handler,
            { method: "GET", path: "/mcp", headers: { accept: "text/event-stream" } },
            format,
          );
          expect(result.statusCode).toBe(405);
          expect(header(result, "Allow")).toBe("POST, DELETE, OPTIONS");
          expect(JSON.parse(result.body)).toStrictEqual({
            jsonrpc: "2.0",
            id: null,
            error: { code: -32000, message: "Method not allowed" },
          });
        });

        it("DELETE /mcp without a session id is 400", async () => {
          const result = await callHttp(handler, { method: "DELETE", path: "/mcp" }, format);
          expect(result.statusCode).toBe(400);
          expect(JSON.parse(result.body)).toMatchObject({
            jsonrpc: "2.0",
            id: null,
            error: { code: -32600 },
          });
        });

        it("OPTIONS /mcp is 204 with the CORS headers MCP clients need", async () => {
          const result = await callHttp(
            handler,
            { method: "OPTIONS", path: "/mcp", headers: { origin: "http://localhost:6274" } },
            format,
          );
          expect(result.statusCode).toBe(204);
          expect(result.body).toBe("");
          expect(header(result, "Content-Type")).toBeUndefined();
          expect(header(result, "Access-Control-Allow-Origin")).toBe("http://localhost:6274");
          expect(header(result, "Access-Control-Allow-Headers")).toBe(
            "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, X-Amz-Date, X-Amz-Security-Token, X-Amz-Content-Sha256",
          );
          expect(header(result, "Access-Control-Allow-Methods")).toBe("GET, POST, DELETE, OPTIONS");
          expect(header(result, "Access-Control-Max-Age")).toBe("7200");
          expect(header(result, "Access-Control-Expose-Headers")).toBe("Mcp-Session-Id");
        });

        it("any other path is 404 {error: Not found}", async () => {
          const result = await callHttp(handler, { method: "GET", path: "/prod/metrics" }, format);
          expect(result.statusCode).toBe(404);
          expect(JSON.parse(result.body)).toStrictEqual({ error: "Not found" });
        });

        it("a stage prefix and a trailing slash still route", async () => {
          const result = await callHttp(
            handler,
            { method: "POST", path: "/prod/mcp/", headers: JSON_HEADERS, body: JSON.stringify(ping()) },
            format,
          );
          expect(JSON.parse(result.body)).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });
        });

        it("one request: 200 with the JSON-RPC response and Access-Control-Allow-Origin *", async () => {
          const result = await postMcp(handler, ping("a"), format);
          expect(result.statusCode).toBe(200);
          expect(header(result, "Content-Type")).toBe("application/json");
          expect(header(result, "Access-Control-Allow-Origin")).toBe("*");
          expect(JSON.parse(result.body)).toStrictEqual({ jsonrpc: "2.0", id: "a", result: {} });
        });

        it("a batch: 200 with the responses in request order and none for notifications", async () => {
          const result = await postMcp(
            handler,
            [ping(2), initialized, ping("x"), { jsonrpc: "2.0", id: 3, method: "nope" }],
            format,
          );
          expect(result.statusCode).toBe(200);
          expect(JSON.parse(result.body)).toStrictEqual([
            { jsonrpc: "2.0", id: 2, result: {} },
            { jsonrpc: "2.0", id: "x", result: {} },
            { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found" } },
          ]);
        });

        it(`only notifications or responses: ${pythonCompat ? '200 {"jsonrpc":"2.0"}' : "202, empty, no Content-Type"}`, async () => {
          for (const body of [
            initialized,
            [initialized, { jsonrpc: "2.0", id: 9, result: {} }],
            { jsonrpc: "2.0", id: null, error: { code: -1, message: "x" } },
          ]) {
            const result = await postMcp(handler, body, format);
            if (pythonCompat) {
              expect(result.statusCode).toBe(200);
              expect(JSON.parse(result.body)).toStrictEqual({ jsonrpc: "2.0" });
            } else {
              expect(result.statusCode).toBe(202);
              expect(result.body).toBe("");
              expect(header(result, "Content-Type")).toBeUndefined();
            }
          }
        });

        it("a body that is not JSON is 400", async () => {
          const result = await callHttp(
            handler,
            { method: "POST", path: "/mcp", headers: JSON_HEADERS, body: "{nope" },
            format,
          );
          expect(result.statusCode).toBe(400);
          const body = JSON.parse(result.body);
          if (pythonCompat) expect(body).toStrictEqual({ error: "Invalid JSON in request body" });
          else
            expect(body).toMatchObject({
              jsonrpc: "2.0",
              id: null,
              error: { code: -32700, message: expect.stringMatching(/^Parse error: /) },
            });
        });

        it("JSON that is not a JSON-RPC message is 400 -32600, echoing a valid id", async () => {
          const cases: [unknown, unknown][] = [
            [{ id: 5, method: "ping" }, 5],
            [{ jsonrpc: "2.0", id: 6 }, 6],
            [{ jsonrpc: "2.0", id: null, method: "ping" }, null],
            [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, null],
            [{ jsonrpc: "2.0", id: true, method: "ping" }, null],
            [{ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }, null],
            [[], null],
          ];
          for (const [body, id] of cases) {
            const result = await postMcp(handler, body, format);
            expect(result.statusCode).toBe(400);
            expect(JSON.parse(result.body)).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600 } });
          }
        });

        it("a batch of more than 100 entries is 400 -32600", async () => {
          const result = await postMcp(
            handler,
            Array.from({ length: 101 }, (_, i) => ping(i)),
            format,
          );
          expect(result.statusCode).toBe(400);
          expect(JSON.parse(result.body)).toMatchObject({ id: null, error: { code: -32600 } });
        });

        it("one bad entry in a batch is answered in its place, the others normally", async () => {
          const result = await postMcp(
            handler,
            [ping(1), { jsonrpc: "2.0", id: 2.5, method: "ping" }, ping(3)],
            format,
          );
          expect(result.statusCode).toBe(200);
          expect(JSON.parse(result.body)).toMatchObject([
            { id: 1, result: {} },
            { id: null, error: { code: -32600 } },
            { id: 3, result: {} },
          ]);
        });

        it("unknown method is 200 -32601, never 404", async () => {
          const result = await postMcp(handler, { jsonrpc: "2.0", id: 1, method: "prompts/list" }, format);
          expect(result.statusCode).toBe(200);
          expect(JSON.parse(result.body)).toStrictEqual({
            jsonrpc: "2.0",
            id: 1,
            error: { code: -32601, message: "Method not found" },
          });
        });

        it("invalid params are 200 -32602, and an unknown tool is -32602 in both modes", async () => {
          for (const body of [
            { jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } },
            callTool(1, "DropTables", {}),
          ]) {
            const result = await postMcp(handler, body, format);
            expect(result.statusCode).toBe(200);
            expect(JSON.parse(result.body)).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602 } });
          }
        });

        it(`a failed tool call is ${pythonCompat ? "a -32603 Tool execution failed error" : "a result with isError"}`, async () => {
          const result = await postMcp(
            handler,
            callTool(4, "ExecuteQuery", { query: "up", time: "yesterday" }),
            format,
          );
          expect(result.statusCode).toBe(200);
          const body = JSON.parse(result.body);
          if (pythonCompat) {
            expect(body).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32603 } });
            expect(body.error.message).toMatch(
              /^Tool execution failed: Error executing tool ExecuteQuery: .*time/,
            );
          } else {
            expect(body.result.isError).toBe(true);
            expect(body.result.content[0].text).toMatch(/^Error executing tool ExecuteQuery: .*time/);
          }
        });

        it("a body over MAX_BODY_BYTES is 413 naming the limit, measured after base64 decoding", async () => {
          const big = JSON.stringify({ ...ping(), params: { pad: "x".repeat(BODY_LIMIT + 10) } });
          const result = await callHttp(
            handler,
            { method: "POST", path: "/mcp", headers: JSON_HEADERS, body: big, base64: true },
            format,
          );
          expect(result.statusCode).toBe(413);
          expect(JSON.parse(result.body)).toMatchObject({
            error: { code: -32600, message: expect.stringContaining(String(BODY_LIMIT)) },
          });
          const fits = JSON.stringify({ ...ping(), params: { pad: "x".repeat(BODY_LIMIT - 200) } });
          expect(Buffer.from(fits).toString("base64").length).toBeGreaterThan(BODY_LIMIT);
          const ok = await callHttp(
            handler,
            { method: "POST", path: "/mcp", headers: JSON_HEADERS, body: fits, base64: true },
            format,
          );
          expect(ok.statusCode).toBe(200);
        });

        it("Content-Type present and not JSON is 415; JSON types with parameters and +json are accepted", async () => {
          const refused = await postMcp(handler, ping(), format, { "content-type": "text/plain" });
          expect(refused.statusCode).toBe(415);
          expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32600 } });
          for (const contentType of [
            "application/json; charset=utf-8",
            "application/vnd.api+json",
            "APPLICATION/JSON",
          ]) {
            expect((await postMcp(handler, ping(), format, { "content-type": contentType })).statusCode).toBe(
              200,
            );
          }
        });

        it("Accept admitting neither application/json nor */* is 406", async () => {
          const refused = await postMcp(handler, ping(), format, { accept: "text/event-stream" });
          expect(refused.statusCode).toBe(406);
          expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32600 } });
          expect(
            (await postMcp(handler, ping(), format, { accept: "application/json;q=0, */*;q=0" })).statusCode,
          ).toBe(406);
          for (const accept of ["*/*", "application/*", "text/event-stream, application/json"]) {
            expect((await postMcp(handler, ping(), format, { accept })).statusCode).toBe(200);
          }
        });

        it("an unsupported MCP-Protocol-Version is 400 naming the supported versions", async () => {
          const result = await postMcp(handler, ping(), format, {
            ...JSON_HEADERS,
            "mcp-protocol-version": "2099-01-01",
          });
          expect(result.statusCode).toBe(400);
          expect(JSON.parse(result.body).error.message).toContain("2025-11-25");
          for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
            expect(
              (await postMcp(handler, ping(), format, { ...JSON_HEADERS, "mcp-protocol-version": version }))
                .statusCode,
            ).toBe(200);
          }
        });

        it("a foreign Origin is 403 without Access-Control-Allow-Origin; localhost and ALLOWED_ORIGINS are served", async () => {
          const refused = await postMcp(handler, ping(), format, {
            ...JSON_HEADERS,
            origin: "https://evil.example",
          });
          expect(refused.statusCode).toBe(403);
          expect(header(refused, "Access-Control-Allow-Origin")).toBeUndefined();
          expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32600 } });
          for (const origin of [
            "http://localhost:6274",
            "http://127.0.0.1",
            "http://[::1]:8080",
            "https://app.example.com",
          ]) {
            const served = await postMcp(handler, ping(), format, { ...JSON_HEADERS, origin });
            expect(served.statusCode).toBe(200);
            expect(header(served, "Access-Control-Allow-Origin")).toBe(origin);
          }
        });

        it("a base64 body is decoded first", async () => {
          const result = await callHttp(
            handler,
            {
              method: "POST",
              path: "/mcp",
              headers: JSON_HEADERS,
              body: JSON.stringify(ping(8)),
              base64: true,
            },
            format,
          );
          expect(JSON.parse(result.body)).toStrictEqual({ jsonrpc: "2.0", id: 8, result: {} });
        });

        it("missing Accept and Content-Type are accepted (curl, Python Lambda clients)", async () => {
          const result = await postMcp(handler, ping(), format, {});
          expect(result.statusCode).toBe(200);
        });

        it("the HTTP rules apply in the contract's order", async () => {
          const post = (headers: Record<string, string>, body = JSON.stringify(ping()), method = "POST") =>
            callHttp(handler, { method, path: "/mcp", headers, body }, format);
          const foreign = { origin: "https://evil.example" };
          expect((await post(foreign, "x".repeat(BODY_LIMIT + 1))).statusCode).toBe(413);
          expect((await post(foreign, undefined, "GET")).statusCode).toBe(403);
          expect((await post({ "content-type": "text/plain" }, undefined, "GET")).statusCode).toBe(405);
          expect((await post({ "content-type": "text/plain", accept: "text/html" })).statusCode).toBe(415);
          expect((await post({ accept: "text/html", "mcp-protocol-version": "1999-01-01" })).statusCode).toBe(
            406,
          );
          const versionFirst = await post({ "mcp-protocol-version": "1999-01-01" }, "{bad json");
          expect(versionFirst.statusCode).toBe(400);
          expect(JSON.parse(versionFirst.body).error.message).toMatch(/MCP-Protocol-Version/);
        });
      });
    }

    describe("initialize", () => {
      it("partial or empty params are completed: protocol 2024-11-05, tools capability, serverInfo", async () => {
        const result = await postMcp(handler, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
        expect(result.statusCode).toBe(200);
        const reply = JSON.parse(result.body);
        expect(reply.result.protocolVersion).toBe("2024-11-05");
        expect(reply.result.capabilities.tools).toBeDefined();
        expect(reply.result.capabilities.logging).toBeDefined();
        expect(reply.result.serverInfo).toStrictEqual({
          name: "prometheus-mcp-lambda",
          version: packageJson.version,
        });
        const noParams = await postMcp(handler, { jsonrpc: "2.0", id: 2, method: "initialize" });
        expect(JSON.parse(noParams.body).result.protocolVersion).toBe("2024-11-05");
      });

      it("a supported version is echoed; an unsupported one gets the latest supported", async () => {
        const init = (protocolVersion: string) =>
          postMcp(handler, {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
          });
        for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
          expect(JSON.parse((await init(version)).body).result.protocolVersion).toBe(version);
        }
        expect(JSON.parse((await init("2030-01-01")).body).result.protocolVersion).toBe("2025-11-25");
      });
    });

    describe("direct invocation", () => {
      const invoke = (payload: unknown) => handler(payload, lambdaContext());

      it("a JSON-RPC object gets the response object, a batch the array", async () => {
        expect(await invoke(ping(3))).toStrictEqual({ jsonrpc: "2.0", id: 3, result: {} });
        expect(await invoke([ping(1), initialized, ping(2)])).toStrictEqual([
          { jsonrpc: "2.0", id: 1, result: {} },
          { jsonrpc: "2.0", id: 2, result: {} },
        ]);
      });

      it(`a notification gets ${pythonCompat ? '{"jsonrpc":"2.0"}' : "null"}`, async () => {
        expect(await invoke(initialized)).toStrictEqual(pythonCompat ? { jsonrpc: "2.0" } : null);
      });

      it("an invalid message gets its JSON-RPC error object", async () => {
        expect(await invoke({ jsonrpc: "2.0", id: false, method: "ping" })).toMatchObject({
          id: null,
          error: { code: -32600 },
        });
        expect(await invoke({ jsonrpc: "1.0", id: 4, method: "ping" })).toMatchObject({
          id: 4,
          error: { code: -32600 },
        });
      });

      it("tools/list works without HTTP", async () => {
        const reply = (await invoke({ jsonrpc: "2.0", id: "t", method: "tools/list" })) as {
          result: { tools: { name: string }[] };
        };
        expect(reply.result.tools.map((tool) => tool.name)).toStrictEqual(
          pythonCompat ? CORE_TOOLS : Object.keys(PLAIN_TOOL_INTERFACE),
        );
      });
    });

    describe("deadline", () => {
      it("a slow Prometheus yields the tool's own timeout error before the Lambda deadline", async () => {
        // The request's deadline would answer -32001 "Request timed out": the tool's own error says the
        // tool's deadline (250 ms before it) came first.
        const result = await callHttp(
          handler,
          {
            method: "POST",
            path: "/mcp",
            headers: JSON_HEADERS,
            body: JSON.stringify(callTool(1, "ExecuteQuery", { query: "up" })),
          },
          "v2",
          1_500,
        );
        const body = JSON.parse(result.body);
        const text = pythonCompat ? body.error.message : body.result.content[0].text;
        expect(text).toMatch(/Error executing tool ExecuteQuery: Prometheus did not answer within \d+ ms/);
      });
    });
  });
}

describe("isolation between stateless requests", () => {
  it("each request gets its own MCP server: logging/setLevel from one caller does not reach the next", async () => {
    const { handler, servers } = makeHandlerCapturingServers();
    const set = await postMcp(handler, {
      jsonrpc: "2.0",
      id: 1,
      method: "logging/setLevel",
      params: { level: "emergency" },
    });
    expect(JSON.parse(set.body)).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });
    await postMcp(handler, ping(2));
    expect(servers).toHaveLength(2);
    expect(await ignores(servers[0], "info")).toBe(true);
    expect(await ignores(servers[1], "info")).toBe(false);
  });

  it("requests that change no MCP state share the container's server; any other gets one of its own", async () => {
    const { handler, servers } = makeHandlerCapturingServers();
    await postMcp(handler, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    await postMcp(handler, [ping(2), callTool(3, "GetServerInfo", {})]);
    expect(servers).toHaveLength(1);
    // A notification, a log level, an initialize: each on a server built for it, then let go.
    await postMcp(handler, [
      ping(4),
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } },
    ]);
    await postMcp(handler, { jsonrpc: "2.0", id: 5, method: "logging/setLevel", params: { level: "error" } });
    expect(servers).toHaveLength(3);
    await postMcp(handler, ping(6));
    expect(servers).toHaveLength(3);
    expect(await ignores(servers[0], "info")).toBe(false);
  });
});

describe("headers and secrets", () => {
  it("no response carries the Authorization header or a stack trace", async () => {
    const handler = makeHandler();
    const secret =
      "AWS4-HMAC-SHA256 Credential=AKIDTESTFAKE/20260101/us-east-1/execute-api/aws4_request, Signature=deadbeef";
    for (const body of [
      "{bad",
      JSON.stringify(ping()),
      JSON.stringify(callTool(1, "ExecuteQuery", { query: "up" })),
    ]) {
      const result = await callHttp(handler, {
        method: "POST",
        path: "/mcp",
        headers: { ...JSON_HEADERS, authorization: secret },
        body,
      });
      const all = JSON.stringify(result);
      expect(all).not.toContain("deadbeef");
      expect(all).not.toContain("AKIDTESTFAKE");
      expect(all).not.toMatch(/\n\s+at /);
    }
  });
});

describe("local run (IS_OFFLINE): DNS-rebinding protection", () => {
  it("a Host that is not localhost is 403; localhost hosts are served", async () => {
    const handler = makeHandler({ IS_OFFLINE: "true" });
    const call = (host: string) =>
      callHttp(handler, {
        method: "POST",
        path: "/mcp",
        headers: { ...JSON_HEADERS, host },
        body: JSON.stringify(ping()),
      });
    expect((await call("evil.example:3000")).statusCode).toBe(403);
    for (const host of ["localhost:3000", "127.0.0.1:3000", "[::1]:3000", "localhost"]) {
      expect((await call(host)).statusCode).toBe(200);
    }
  });

  it("in Lambda the Host is not checked", async () => {
    const handler = makeHandler({ AWS_LAMBDA_FUNCTION_NAME: "fn" });
    const result = await callHttp(handler, {
      method: "POST",
      path: "/mcp",
      headers: { ...JSON_HEADERS, host: "abc.execute-api.us-east-1.amazonaws.com" },
      body: JSON.stringify(ping()),
    });
    expect(result.statusCode).toBe(200);
  });
});

describe("in Lambda or not", () => {
  it("a profile argument is refused in a deployed Lambda, accepted locally", async () => {
    const args = { profile: "dev" };
    const inLambda = makeHandler({
      AWS_LAMBDA_FUNCTION_NAME: "fn",
      PROMETHEUS_URL: "https://prom.example/",
    });
    const refused = JSON.parse((await postMcp(inLambda, callTool(1, "GetServerInfo", args))).body);
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0].text).toMatch(/^Error executing tool GetServerInfo: .*profile/i);
    const local = makeHandler({
      AWS_LAMBDA_FUNCTION_NAME: "fn",
      IS_LOCAL: "true",
      PROMETHEUS_URL: "https://prom.example/",
    });
    const accepted = JSON.parse((await postMcp(local, callTool(1, "GetServerInfo", args))).body);
    expect(accepted.result.structuredContent).toStrictEqual({
      prometheus_url: "https://prom.example",
      aws_region: "us-east-1",
      aws_profile: "dev",
      service_name: "aps",
      auth_mode: "sigv4",
      backend_kind: "prometheus",
      server_time: expect.any(String),
      result_budget_bytes: expect.any(Number),
      result_budget_tokens: 20_000,
    });
  });
});

/** A tool that answers with the deadline it was given (epoch ms). */
const DEADLINE = defineTool({
  name: "Deadline",
  description: "tells its deadline",
  annotations: {},
  inputSchema: z.object({}),
  outputSchema: z.object({ deadlineAt: z.number() }),
  run: async (_args, call) => ({ deadlineAt: call.context.deadlineAt }),
});

/** A tool that never answers, whatever its deadline. */
const STUCK = defineTool({
  name: "Stuck",
  description: "ignores its deadline",
  annotations: {},
  inputSchema: z.object({}),
  outputSchema: z.object({}),
  run: () => new Promise<Record<string, never>>(() => undefined),
});

describe("faults", () => {
  it("a server fault is 500 -32603 Internal error, without detail; the detail goes to the log", async () => {
    const broken = {
      name: "Broken",
      description: "d",
      annotations: {},
      get inputSchema(): never {
        throw new Error("secret internal detail at /var/task/index.mjs:1");
      },
      outputSchema: z.object({}),
      run: async () => ({}),
    } as unknown as Tool;
    const handler = makeHandler({}, { tools: [broken] });
    const result = (await handler(
      httpEvent("v2", {
        method: "POST",
        path: "/mcp",
        headers: JSON_HEADERS,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body)).toStrictEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error" },
    });
  });

  it("an error reply that merely reads like a fault is not one: a tool failing under PYTHON_COMPAT is 200", async () => {
    const failing = defineTool({
      name: "Failing",
      description: "always fails",
      annotations: {},
      inputSchema: z.object({}),
      outputSchema: z.object({}),
      run: async () => {
        throw new ToolError("Internal error", "upstream_failed");
      },
    });
    const handler = makeHandler({ PYTHON_COMPAT: "true" }, { tools: [failing] });
    const result = await postMcp(handler, callTool(3, "Failing", {}));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toStrictEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "Tool execution failed: Error executing tool Failing: Internal error" },
    });
  });

  it("API Gateway's own limit (30 s HTTP API, 29 s REST, from its request time) bounds the deadline; a Function URL's does not, nor a streaming integration's", async () => {
    const handler = makeHandler({}, { tools: [DEADLINE, STUCK] });
    /** The event of a call of `tool`, its front door's request time stamped `receivedAt`. */
    const event = (format: EventFormat, tool: string, receivedAt: number) => {
      const made = httpEvent(format, {
        method: "POST",
        path: "/mcp",
        headers: JSON_HEADERS,
        body: JSON.stringify(callTool(6, tool, {})),
      }) as { requestContext: Record<string, unknown> };
      made.requestContext[format === "v1" ? "requestTimeEpoch" : "timeEpoch"] = receivedAt;
      return made;
    };
    // On a clock moved by hand, the deadline a tool is given is exact: the front door's limit or the
    // Lambda's end, whichever comes first, less the 500 ms margin and the tool's 250 ms.
    useFakeClock();
    try {
      const now = Date.now();
      /** The tool's deadline, in ms from now, the Lambda having `remainingMs` left. */
      const deadline = async (format: EventFormat, receivedAt: number, remainingMs: number) => {
        const result = (await handler(event(format, "Deadline", receivedAt), lambdaContext(remainingMs))) as {
          body: string;
        };
        return (JSON.parse(result.body).result.structuredContent.deadlineAt as number) - now;
      };
      const LAMBDA_MS = 15 * 60_000;
      if (ENTRY === "streaming") {
        // A streaming integration (REST API) waits as long as the function runs: its 29 s does not cut
        // a request received 28.1 s ago; what bounds a streamed answer is the Lambda's end alone.
        expect(await deadline("v1", now - 28_100, LAMBDA_MS)).toBe(LAMBDA_MS - 750);
        expect(await deadline("url", now - 29_100, LAMBDA_MS)).toBe(LAMBDA_MS - 750);
        expect(await deadline("v2", now - 29_100, 1_500)).toBe(750);
        return;
      }
      // Received 29.1 s (HTTP API) / 28.1 s (REST) ago: 900 ms left at the gateway, whatever the Lambda's.
      expect(await deadline("v2", now - 29_100, LAMBDA_MS)).toBe(150);
      expect(await deadline("v1", now - 28_100, LAMBDA_MS)).toBe(150);
      // The Lambda's end, when it comes first.
      expect(await deadline("v2", now - 29_100, 800)).toBe(50);
      // A Function URL waits for the function: its deadline is the Lambda's.
      expect(await deadline("url", now - 29_100, LAMBDA_MS)).toBe(LAMBDA_MS - 750);
      // A stamp from the future or from before the limit is a hand-made or skewed event: counted from now.
      expect(await deadline("v2", now + 60_000, LAMBDA_MS)).toBe(30_000 - 750);
      expect(await deadline("v2", now - 60_000, LAMBDA_MS)).toBe(30_000 - 750);

      // And the gateway's limit ends a request that runs on: not 1 ms before 400 ms (900 less the
      // margin), -32001 at it, with 15 minutes left in the Lambda.
      const stuck = watch(handler(event("v2", "Stuck", Date.now() - 29_100), lambdaContext(LAMBDA_MS)));
      await advance(399);
      expect(stuck.settled).toBe(false);
      await advance(1);
      expect(stuck.settled).toBe(true);
      expect(JSON.parse(((await stuck.promise) as { body: string }).body).error.code).toBe(-32001);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a request still running at the deadline is 200 -32001 Request timed out", async () => {
    const handler = makeHandler({}, { tools: [STUCK] });
    // On a clock moved by hand: 800 ms left in the Lambda, less the 500 ms margin.
    useFakeClock();
    try {
      const answer = watch(
        handler(
          httpEvent("v1", {
            method: "POST",
            path: "/mcp",
            headers: JSON_HEADERS,
            body: JSON.stringify(callTool(5, "Stuck", {})),
          }),
          lambdaContext(800),
        ) as Promise<{ statusCode: number; body: string }>,
      );
      await advance(299);
      expect(answer.settled).toBe(false);
      await advance(1);
      expect(answer.settled).toBe(true);
      const result = await answer.promise;
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toStrictEqual({
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32001, message: "Request timed out" },
      });
    } finally {
      vi.useRealTimers();
    }
  });
});
