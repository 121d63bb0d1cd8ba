import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { httpEvent, lambdaContext } from "../support/events.js";
import { type HttpResult, JSON_HEADERS, makeHandler } from "../support/handler.js";

/**
 * Regression tests of the security review's items 9 (hostile direct invocations) and 10 (bounded
 * request log lines naming the caller), and of what the fuzz suite found in src/http and src/lambda/app.ts.
 */

const INTERNAL_ERROR = { jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error" } };

let lines: string[] = [];

beforeEach(() => {
  lines = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture as typeof process.stdout.write);
  vi.spyOn(process.stderr, "write").mockImplementation(capture as typeof process.stderr.write);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every log line written so far, parsed, with its size in bytes. */
function logEntries(): { entry: Record<string, unknown>; bytes: number }[] {
  return lines
    .join("")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ({ entry: JSON.parse(line) as Record<string, unknown>, bytes: Buffer.byteLength(line) }));
}

function requestLines(): { entry: Record<string, unknown>; bytes: number }[] {
  return logEntries().filter(
    ({ entry }) => entry.message === "request" || entry.message === "direct invocation",
  );
}

function errorLines(): Record<string, unknown>[] {
  return logEntries()
    .map(({ entry }) => entry)
    .filter((entry) => entry.level === "ERROR");
}

const handler = () => makeHandler({ LOG_LEVEL: "INFO" });

describe("hostile direct invocations (review item 9)", () => {
  it("the review's event: a multi-value header whose value has no callable toString", async () => {
    const event = { httpMethod: "POST", path: "/mcp", multiValueHeaders: { x: [{ toString: 1 }] } };
    const result = (await handler()(event, lambdaContext())) as HttpResult;
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(errorLines()).toStrictEqual([]);
  });

  it.each<[string, unknown]>([
    ["an object whose toString is not callable", { toString: 1 }],
    ["an object without a prototype", Object.create(null)],
    ["a symbol", Symbol("x")],
    ["a boxed string", Object("text")],
    ["an array of those", [{ toString: 1 }, Object.create(null)]],
  ])("%s anywhere in an HTTP event is skipped or refused, never thrown on", async (_, hostile) => {
    const h = handler();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const v1 = {
      ...httpEvent("v1", { method: "POST", path: "/mcp", headers: JSON_HEADERS, body }),
      multiValueHeaders: { "content-type": ["application/json"], x: [hostile], y: hostile },
    };
    const v1Result = (await h(v1, lambdaContext())) as HttpResult;
    expect(v1Result.statusCode).toBe(200);
    expect(JSON.parse(v1Result.body)).toStrictEqual({ jsonrpc: "2.0", id: 1, result: {} });

    const v2 = httpEvent("v2", { method: "POST", path: "/mcp", headers: JSON_HEADERS, body }) as {
      headers: Record<string, unknown>;
      requestContext: { http: Record<string, unknown>; requestId: unknown; authorizer?: unknown };
    };
    v2.headers.origin = hostile;
    v2.requestContext.requestId = hostile;
    v2.requestContext.authorizer = { iam: { userArn: hostile } };
    const v2Result = (await h(v2, lambdaContext())) as HttpResult;
    expect(v2Result.statusCode).toBe(200);

    v2.requestContext.http.method = hostile;
    const noMethod = (await h(v2, lambdaContext())) as HttpResult;
    expect(noMethod.statusCode).toBe(405);
    expect(JSON.parse(noMethod.body)).toMatchObject({ error: { code: -32000 } });

    const weirdPath = { ...httpEvent("v1", { method: "POST", path: "/mcp", body }), path: hostile };
    expect(((await h(weirdPath, lambdaContext())) as HttpResult).statusCode).toBe(404);
    expect(errorLines()).toStrictEqual([]);
  });

  it.each<[string, unknown]>([
    ["an empty object", {}],
    ["an object that is neither HTTP nor JSON-RPC", { foo: 1, requestContext: { http: "x" } }],
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    ["a string", "tools/list"],
    ["an HTTP-looking event with a numeric method", { httpMethod: 1, path: "/mcp" }],
  ])("%s gets a JSON-RPC error result", async (_, event) => {
    const result = await handler()(event, lambdaContext());
    expect(result).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(errorLines()).toStrictEqual([]);
  });

  it("a direct batch with holes (a sparse array) is answered, and its log line written", async () => {
    // biome-ignore lint/suspicious/noSparseArray: the hazard under test
    const sparse = [, { jsonrpc: "2.0", id: 1, method: "ping" }, ,];
    const result = await handler()(sparse, lambdaContext());
    expect(Array.isArray(result)).toBe(true);
    expect(errorLines()).toStrictEqual([]);
    expect(requestLines()).toHaveLength(1);
  });

  it("onError never throws: an event whose properties throw when read gets the fault reply", async () => {
    const event = {
      get httpMethod(): never {
        throw new Error("getter");
      },
    };
    const result = await handler()(event, lambdaContext());
    expect(result).toStrictEqual(INTERNAL_ERROR);
    expect(errorLines()).toHaveLength(1);
  });

  it.each<[string, unknown]>([
    ["an object without a callable toString", { toString: 1 }],
    ["an object without a prototype", Object.create(null)],
    ["a string", "plain"],
    ["a symbol", Symbol("thrown")],
  ])("onError never throws: a server that throws %s is a 500 with a logged fault", async (_, thrown) => {
    const h = makeHandler(
      { LOG_LEVEL: "INFO" },
      {
        onServerCreated: () => {
          throw thrown;
        },
      },
    );
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const http = (await h(
      httpEvent("v2", { method: "POST", path: "/mcp", headers: JSON_HEADERS, body }),
      lambdaContext(),
    )) as HttpResult;
    expect(http.statusCode).toBe(500);
    expect(JSON.parse(http.body)).toStrictEqual(INTERNAL_ERROR);
    expect(http.headers["Content-Type"]).toBe("application/json");

    const direct = await h({ jsonrpc: "2.0", id: 1, method: "tools/list" }, lambdaContext());
    expect(direct).toStrictEqual(INTERNAL_ERROR);
    expect(errorLines()).toHaveLength(2);
  });

  it("Middy's early timeout is answered -32001 Request timed out (HTTP 200), not as a server fault", async () => {
    const middyTimeout = new Error("[AbortError]: The operation was aborted.", {
      cause: { package: "@middy/core" },
    });
    middyTimeout.name = "TimeoutError";
    const h = makeHandler(
      { LOG_LEVEL: "INFO" },
      {
        onServerCreated: () => {
          throw middyTimeout;
        },
      },
    );
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const http = (await h(
      httpEvent("url", { method: "POST", path: "/mcp", headers: JSON_HEADERS, body }),
      lambdaContext(),
    )) as HttpResult;
    expect(http.statusCode).toBe(200);
    expect(JSON.parse(http.body)).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: "Request timed out" },
    });
    const direct = await h({ jsonrpc: "2.0", id: 1, method: "tools/list" }, lambdaContext());
    expect(direct).toMatchObject({ error: { code: -32001 } });
    expect(errorLines()).toStrictEqual([]);
  });

  it("a header value with CR, LF or NUL is dropped: an Origin never splits Access-Control-Allow-Origin", async () => {
    const h = makeHandler({ LOG_LEVEL: "INFO", ALLOWED_ORIGINS: "*" });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    for (const origin of [
      "http://local\nhost",
      "http://localhost:3000\r\nSet-Cookie: a=b",
      "https://a.example\u0000",
    ]) {
      for (const format of ["v1", "v2"] as const) {
        for (const path of ["/mcp", "/health"]) {
          const event = httpEvent(format, {
            method: path === "/mcp" ? "POST" : "GET",
            path,
            headers: { ...JSON_HEADERS, origin },
            body,
          });
          const result = (await h(event, lambdaContext())) as HttpResult;
          for (const value of Object.values(result.headers)) expect(value).not.toMatch(/[\r\n\0]/);
          expect(result.statusCode).toBe(200);
        }
      }
    }
  });

  it("only an exact serialized origin is allowed and echoed", async () => {
    const h = makeHandler({ LOG_LEVEL: "INFO", ALLOWED_ORIGINS: "https://app.example.com" });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const call = async (origin: string) =>
      (await h(
        httpEvent("v2", { method: "POST", path: "/mcp", headers: { ...JSON_HEADERS, origin }, body }),
        lambdaContext(),
      )) as HttpResult;
    expect((await call("https://app.example.com")).headers["Access-Control-Allow-Origin"]).toBe(
      "https://app.example.com",
    );
    expect((await call("http://localhost:6274")).statusCode).toBe(200);
    for (const origin of [
      "https://app.example.com/",
      "https://APP.example.com",
      "http://localhost:80",
      "http://localhost\t",
    ]) {
      const refused = await call(origin);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers["Access-Control-Allow-Origin"]).toBeUndefined();
    }
  });
});

describe("request log lines (review item 10)", () => {
  const MAX_LINE_BYTES = 4_096;

  it("a megabyte batch of notifications logs one bounded line, methods counted by name", async () => {
    const one = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
    const count = Math.floor(1_000_000 / (JSON.stringify(one).length + 1));
    const body = JSON.stringify(Array.from({ length: count }, () => one));
    expect(body.length).toBeGreaterThan(990_000);
    const principal = "arn:aws:iam::123456789012:user/alice";
    await handler()(
      httpEvent("v2", { method: "POST", path: "/mcp", headers: JSON_HEADERS, body, principal }),
      lambdaContext(),
    );
    const [line, ...others] = requestLines();
    expect(others).toStrictEqual([]);
    expect(line?.bytes).toBeLessThan(MAX_LINE_BYTES);
    expect(line?.entry).toMatchObject({
      message: "request",
      principal,
      status: 400,
      rpc: ["notifications/cancelled"],
      rpc_counts: [count],
      rpc_messages: count,
    });
  });

  it("names the caller: IAM ARN, JWT sub, REST API identity; '-' when there is none", async () => {
    const h = handler();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const base = { method: "POST", path: "/mcp", headers: JSON_HEADERS, body };
    await h(httpEvent("v2", { ...base, principal: "arn:aws:iam::123456789012:role/r" }), lambdaContext());
    const jwt = httpEvent("v2", base) as { requestContext: Record<string, unknown> };
    jwt.requestContext.authorizer = { jwt: { claims: { sub: "user-42" } } };
    await h(jwt, lambdaContext());
    await h(httpEvent("v1", { ...base, principal: "arn:aws:iam::123456789012:user/bob" }), lambdaContext());
    await h(httpEvent("url", base), lambdaContext());
    await h(
      httpEvent("v2", { method: "GET", path: "/health", principal: "arn:aws:iam::1:user/h" }),
      lambdaContext(),
    );
    await h({ jsonrpc: "2.0", id: 1, method: "ping" }, lambdaContext());
    expect(requestLines().map(({ entry }) => entry.principal)).toStrictEqual([
      "arn:aws:iam::123456789012:role/r",
      "user-42",
      "arn:aws:iam::123456789012:user/bob",
      "-",
      "arn:aws:iam::1:user/h",
      "-",
    ]);
  });

  it("cuts every caller-controlled field: path, method, principal, request id, method names and their number", async () => {
    const names = Array.from({ length: 40 }, (_, i) => `x${i}/${"m".repeat(5_000)}`);
    const body = JSON.stringify(names.map((method, id) => ({ jsonrpc: "2.0", id, method })));
    const event = httpEvent("v2", {
      method: "POST",
      path: `/${"p".repeat(100_000)}/mcp`,
      headers: JSON_HEADERS,
      body,
      principal: `arn:aws:iam::123456789012:user/${"u".repeat(100_000)}`,
      requestId: "r".repeat(100_000),
    }) as { requestContext: { http: Record<string, unknown> } };
    const h = handler();
    await h(event, lambdaContext());
    const [line] = requestLines();
    expect(line?.bytes).toBeLessThan(MAX_LINE_BYTES);
    const entry = line?.entry as Record<string, unknown>;
    expect((entry.rpc as string[]).length).toBe(10);
    expect(entry.rpc_messages).toBe(40);
    expect(entry.rpc_counts).toStrictEqual(Array(10).fill(1));
    expect(String(entry.path).endsWith("…")).toBe(true);
    expect(String(entry.principal).startsWith("arn:aws:iam::123456789012:user/uuu")).toBe(true);
    expect(String(entry.correlation_id).length).toBeLessThanOrEqual(128);

    lines = [];
    event.requestContext.http.method = `POST${"T".repeat(100_000)}`;
    await h(event, lambdaContext());
    const [longMethod] = requestLines();
    expect(longMethod?.bytes).toBeLessThan(MAX_LINE_BYTES);
    expect(longMethod?.entry).toMatchObject({ method: `POST${"T".repeat(12)}…`, status: 405 });

    lines = [];
    const direct = names.map((method, id) => ({ jsonrpc: "2.0", id, method }));
    await handler()(direct, lambdaContext());
    const [directLine] = requestLines();
    expect(directLine?.bytes).toBeLessThan(MAX_LINE_BYTES);
    expect(directLine?.entry).toMatchObject({
      message: "direct invocation",
      principal: "-",
      rpc_messages: 40,
    });
  });

  it("a batch's methods are counted by name, in the order first seen", async () => {
    const body = JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } },
      { jsonrpc: "2.0", id: 4, result: {} },
    ]);
    await handler()(
      httpEvent("v2", { method: "POST", path: "/mcp", headers: JSON_HEADERS, body }),
      lambdaContext(),
    );
    expect(requestLines()[0]?.entry).toMatchObject({
      rpc: ["tools/list", "ping", "notifications/cancelled", "-"],
      rpc_counts: [2, 1, 1, 1],
      rpc_messages: 5,
    });
  });
});
