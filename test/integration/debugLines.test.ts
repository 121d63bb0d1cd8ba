import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startRequest } from "../../src/context.js";
import { boundedFields, DEBUG_FIELD_BYTES, DEBUG_FIELDS } from "../../src/metrics/requestLine.js";
import { captureOutput } from "../support/capture.js";
import { callHttp, JSON_HEADERS, makeHandler } from "../support/handler.js";
import { closeServer, listenLoopback } from "../support/net.js";

// A DEBUG line is bounded whatever the request, as the INFO request line is: each field at most
// DEBUG_FIELD_BYTES serialized (a string cut and marked, an object or array serialized and cut), so a
// line stays well within CloudWatch Logs' 256 KB event even for a 1 MB body (the report: a 200,000-digit
// step, and a 200 KB URL, were logged whole).

/** Every field of a DEBUG line together stays under this, whatever was sent (16 fields of 4 KB, and names). */
const LINE_BOUND = DEBUG_FIELDS * (DEBUG_FIELD_BYTES + 200) + 2_000;
/** What one line of these tests takes at most: a few fields of DEBUG_FIELD_BYTES and the logger's keys. */
const FEW_FIELDS_BOUND = 4 * DEBUG_FIELD_BYTES + 2_000;
const CUT_MARKER = / \[cut from \d+ characters\]$/;

/** A Prometheus stand-in that refuses every query as Prometheus does (422), reading even a huge URL. */
let prometheus: Server;
let prometheusUrl: string;
beforeAll(async () => {
  prometheus = createServer({ maxHeaderSize: 2_000_000 }, (_request, response) => {
    response.writeHead(422, { "content-type": "application/json" });
    response.end('{"status":"error","errorType":"bad_data","error":"parse error"}');
  });
  prometheusUrl = await listenLoopback(prometheus);
});
afterAll(() => closeServer(prometheus));
afterEach(() => {
  vi.restoreAllMocks();
});

/** The raw lines written while `run` runs: their text, and each parsed. */
async function linesOf(
  run: () => Promise<unknown>,
): Promise<{ raw: string[]; parsed: Record<string, unknown>[] }> {
  const output = captureOutput();
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  const raw = output.text().split("\n").filter(Boolean);
  return { raw, parsed: output.lines() };
}

function call(name: string, args: Record<string, unknown>) {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
}

const post = (body: string) =>
  callHttp(makeHandler({ PROMETHEUS_URL: prometheusUrl, PROMETHEUS_AUTH: "none", LOG_LEVEL: "DEBUG" }), {
    method: "POST",
    path: "/mcp",
    headers: JSON_HEADERS,
    body,
  });

describe("DEBUG lines through the handler", () => {
  it("a 200,000-digit step and a 200,000-character query are refused, and no line carries them", async () => {
    for (const args of [
      { query: "up", start: "1700000000", end: "1700003600", step: "1".repeat(200_000) },
      { query: `up{x="${"a".repeat(200_000)}"}`, start: "1700000000", end: "1700003600", step: "60" },
    ]) {
      const { raw, parsed } = await linesOf(async () => {
        const result = await post(call("ExecuteRangeQuery", args));
        const reply = JSON.parse(result.body);
        expect(reply.result.isError).toBe(true);
        expect(reply.result.content[0].text).toMatch(/Invalid arguments: (step|query) must be at most/);
      });
      expect(parsed.some((line) => line.message === "request")).toBe(true);
      for (const line of raw) {
        expect(Buffer.byteLength(line)).toBeLessThan(FEW_FIELDS_BOUND);
        expect(line).not.toContain("1".repeat(1_000));
        expect(line).not.toContain("a".repeat(5_000));
      }
    }
  });

  it("the longest query accepted, of characters that grow most when escaped or encoded, gives lines of a few KB", async () => {
    // 20,000 characters: as JSON each \u0001 takes 6 bytes; in the URL each é takes 6 (%C3%A9).
    const head = 'up{x="';
    const query = `${head}${"\u0001é".repeat((20_000 - head.length - 2) / 2)}"}`;
    expect(query).toHaveLength(20_000);
    const { raw, parsed } = await linesOf(() =>
      post(call("ExecuteQuery", { query, time: "1700000000" })).then((result) => {
        expect(JSON.parse(result.body).result.isError).toBe(true);
      }),
    );
    const debug = parsed.filter((line) => line.level === "DEBUG");
    const called = debug.find((line) => line.message === "tool called");
    // The arguments serialize to about 80 KB: logged as their JSON, cut and marked.
    expect(called?.tool).toBe("ExecuteQuery");
    expect(typeof called?.arguments).toBe("string");
    expect(String(called?.arguments)).toMatch(/^\{"query":"up\{x=\\"/);
    expect(String(called?.arguments)).toMatch(CUT_MARKER);
    const answered = debug.find((line) => line.message === "Prometheus answered");
    expect(answered?.status).toBe(422);
    expect(String(answered?.url)).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/query\?query=up%7Bx%3D%22%01%C3%A9/,
    );
    expect(String(answered?.url)).toMatch(CUT_MARKER);
    for (const line of raw) expect(Buffer.byteLength(line)).toBeLessThan(FEW_FIELDS_BOUND);
  });

  it("small fields are logged as they are, objects kept as objects", async () => {
    const { parsed } = await linesOf(() => post(call("ExecuteQuery", { query: "up", time: "1700000000" })));
    expect(parsed.find((line) => line.message === "tool called")).toMatchObject({
      level: "DEBUG",
      tool: "ExecuteQuery",
      arguments: { query: "up", time: "1700000000" },
    });
  });
});

describe("boundedFields", () => {
  const serialized = (fields: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(fields));

  it("cuts each string, object and array to DEBUG_FIELD_BYTES serialized, marked with the length it had", () => {
    const step = "1".repeat(200_000);
    const fields = boundedFields({
      step,
      escaped: "\u0001".repeat(200_000),
      wide: "é😀".repeat(100_000),
      list: Array.from({ length: 200_000 }, (_, i) => i),
      args: { query: "x".repeat(200_000), step },
    });
    for (const [name, value] of Object.entries(fields)) {
      expect(typeof value, name).toBe("string");
      expect(Buffer.byteLength(JSON.stringify(value)), name).toBeLessThanOrEqual(DEBUG_FIELD_BYTES + 40);
      expect(value, name).toMatch(CUT_MARKER);
    }
    expect(fields.step).toMatch(/^1{4000,4096}… \[cut from 200000 characters\]$/);
    expect(fields.list).toMatch(/^\[0,1,2,3,/);
    expect(fields.args).toMatch(/^\{"query":"xxx/);
    // A surrogate pair is never split: the text stays valid Unicode.
    expect(String(fields.wide)).not.toMatch(/\p{Cs}/u);
    expect(serialized(fields)).toBeLessThan(5 * (DEBUG_FIELD_BYTES + 100));
  });

  it("keeps small values as they are, and survives what does not serialize", () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    expect(
      boundedFields({
        tool: "ExecuteQuery",
        arguments: { query: "up", step: "15s" },
        status: 200,
        warm: false,
        none: null,
        circular,
        big: 10n ** 30n,
        error: new Error("x".repeat(100_000)),
      }),
    ).toStrictEqual({
      tool: "ExecuteQuery",
      arguments: { query: "up", step: "15s" },
      status: 200,
      warm: false,
      none: null,
      circular: "an unserializable object",
      big: "1000000000000000000000000000000",
      error: expect.stringMatching(/^Error: x+… \[cut from 100007 characters\]$/),
    });
  });

  it("keeps at most DEBUG_FIELDS fields, their names cut, and says how many were left out", () => {
    const many = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, i) => [`${"n".repeat(200)}${i}`, "v".repeat(100_000)]),
    );
    const fields = boundedFields(many);
    expect(Object.keys(fields)).toHaveLength(DEBUG_FIELDS + 1);
    expect(fields.fields_left_out).toBe(1_000 - DEBUG_FIELDS);
    expect(serialized(fields)).toBeLessThan(LINE_BOUND);
    expect(LINE_BOUND).toBeLessThan(100_000);
  });

  it("every request context's debug writes bounded fields", () => {
    const written: Record<string, unknown>[] = [];
    const request = startRequest({ timeoutMs: 1_000, debug: (_message, fields) => written.push(fields) });
    request.debug?.("tool called", { tool: "ExecuteRangeQuery", arguments: { step: "1".repeat(200_000) } });
    request.end();
    expect(written).toHaveLength(1);
    expect(serialized(written[0] as Record<string, unknown>)).toBeLessThan(DEBUG_FIELD_BYTES + 200);
    expect(written[0]?.arguments).toMatch(CUT_MARKER);
  });
});
