import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect } from "vitest";
import { EVENT_FORMATS, type EventFormat } from "../support/events.js";
import { callHttp, type HttpResult, JSON_HEADERS, makeHandler } from "../support/handler.js";

type Handler = Awaited<ReturnType<typeof makeHandler>>;
let handler: Handler;
beforeAll(async () => {
  handler = makeHandler();
});

interface Case {
  body: string;
  headers: Record<string, string>;
  status: number;
  /** Expected JSON-RPC error code (per entry for batches). */
  code: number | number[];
  id: string | number | null | (string | number | null)[];
}

const validId = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }));
const badId = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
  fc.constant({}),
  fc.constant([1]),
);

const notJson: fc.Arbitrary<Case> = fc
  .string({ maxLength: 40 })
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  })
  .map((body) => ({ body, headers: JSON_HEADERS, status: 400, code: -32700, id: null }));

const notAMessage: fc.Arbitrary<Case> = fc
  .oneof(fc.integer(), fc.string(), fc.constant(null), fc.boolean(), fc.constant({}))
  .map((value) => ({
    body: JSON.stringify(value),
    headers: JSON_HEADERS,
    status: 400,
    code: -32600,
    id: null,
  }));

const wrongVersion: fc.Arbitrary<Case> = fc
  .tuple(validId, fc.constantFrom(undefined, "1.0", 2, null))
  .map(([id, jsonrpc]) => ({
    body: JSON.stringify({ jsonrpc, id, method: "ping" }),
    headers: JSON_HEADERS,
    status: 400,
    code: -32600,
    id,
  }));

const invalidId: fc.Arbitrary<Case> = badId.map((id) => ({
  body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
  headers: JSON_HEADERS,
  status: 400,
  code: -32600,
  id: null,
}));

const paramsNotObject: fc.Arbitrary<Case> = fc
  .tuple(validId, fc.oneof(fc.constant([1, 2]), fc.string(), fc.integer(), fc.constant(null)))
  .map(([id, params]) => ({
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params }),
    headers: JSON_HEADERS,
    status: 400,
    code: -32600,
    id,
  }));

const unknownMethod: fc.Arbitrary<Case> = fc
  .tuple(validId, fc.stringMatching(/^[a-z]{1,8}\/[a-z]{1,8}$/))
  .filter(([, method]) => !["tools/list", "tools/call", "logging/setlevel"].includes(method))
  .map(([id, method]) => ({
    body: JSON.stringify({ jsonrpc: "2.0", id, method: `x-${method}` }),
    headers: JSON_HEADERS,
    status: 200,
    code: -32601,
    id,
  }));

const invalidParams: fc.Arbitrary<Case> = fc
  .tuple(
    validId,
    fc.constantFrom(
      { method: "tools/call", params: { name: 42 } },
      { method: "tools/call", params: {} },
      { method: "logging/setLevel", params: { level: "loud" } },
      { method: "initialize", params: { protocolVersion: 2025 } },
      { method: "tools/call", params: { name: "NoSuchTool", arguments: {} } },
    ),
  )
  .map(([id, message]) => ({
    body: JSON.stringify({ jsonrpc: "2.0", id, ...message }),
    headers: JSON_HEADERS,
    status: 200,
    code: -32602,
    id,
  }));

const badHeaders: fc.Arbitrary<Case> = fc.oneof(
  fc.constantFrom("text/plain", "application/xml", "multipart/form-data", "text/json").map((contentType) => ({
    body: "{}",
    headers: { "content-type": contentType },
    status: 415,
    code: -32600,
    id: null,
  })),
  fc.constantFrom("text/event-stream", "text/html", "application/json;q=0", "image/*").map((accept) => ({
    body: "{}",
    headers: { "content-type": "application/json", accept },
    status: 406,
    code: -32600,
    id: null,
  })),
  fc
    .stringMatching(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/)
    .filter((v) => !["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"].includes(v))
    .map((version) => ({
      body: "{}",
      headers: { "content-type": "application/json", "mcp-protocol-version": version },
      status: 400,
      code: -32600,
      id: null,
    })),
);

const batchWithBadEntries: fc.Arbitrary<Case> = fc
  .array(
    fc.oneof(
      validId.map((id) => ({ ok: true, id })),
      badId.map((id) => ({ ok: false, id })),
    ),
    {
      minLength: 1,
      maxLength: 10,
    },
  )
  .map((entries) => ({
    body: JSON.stringify(entries.map(({ id }) => ({ jsonrpc: "2.0", id, method: "ping" }))),
    headers: JSON_HEADERS,
    status: 200,
    code: entries.map(({ ok }) => (ok ? 0 : -32600)),
    id: entries.map(({ ok, id }) => (ok ? (id as string | number) : null)),
  }));

function expectWellFormedError(reply: unknown, code: number, id: unknown): void {
  expect(reply).toMatchObject({ jsonrpc: "2.0", error: { code } });
  expect((reply as { id: unknown }).id).toStrictEqual(id);
  expect(typeof (reply as { error: { message: unknown } }).error.message).toBe("string");
}

function expectNoInternals(result: HttpResult): void {
  expect(result.body).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|AKID|test-secret/);
}

describe("error formatting", () => {
  test.prop(
    [
      fc.constantFrom<EventFormat>(...EVENT_FORMATS),
      fc.oneof(
        notJson,
        notAMessage,
        wrongVersion,
        invalidId,
        paramsNotObject,
        unknownMethod,
        invalidParams,
        badHeaders,
        batchWithBadEntries,
      ),
    ],
    { numRuns: 400 },
  )(
    "any malformed body, id, params or header gets a well-formed JSON-RPC error with the contract's code and status",
    async (format, c) => {
      const result = await callHttp(
        handler,
        { method: "POST", path: "/mcp", headers: c.headers, body: c.body },
        format,
        5_000,
      );
      expect(result.statusCode).toBe(c.status);
      expect(result.headers["Content-Type"]).toBe("application/json");
      expectNoInternals(result);
      const reply = JSON.parse(result.body);
      if (Array.isArray(c.code)) {
        expect(reply).toHaveLength(c.code.length);
        c.code.forEach((code, i) => {
          const expectedId = (c.id as unknown[])[i];
          if (code === 0) expect(reply[i]).toStrictEqual({ jsonrpc: "2.0", id: expectedId, result: {} });
          else expectWellFormedError(reply[i], code, expectedId);
        });
        return;
      }
      expectWellFormedError(reply, c.code, c.id);
    },
  );
});
