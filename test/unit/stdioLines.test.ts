import { PassThrough, Writable } from "node:stream";
import { fc, test } from "@fast-check/vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type BadLine,
  LineSplitter,
  parseLine,
  RateLimitedLog,
  StdioLineTransport,
} from "../../src/stdio/stdioLines.js";

type Event = { line: string } | { tooLong: number; head: string };

function splitAll(maxBytes: number, chunks: Buffer[], end = false): Event[] {
  const events: Event[] = [];
  const splitter = new LineSplitter(
    maxBytes,
    (line) => events.push({ line: line.toString("latin1") }),
    (bytes, head) => events.push({ tooLong: bytes, head: head.toString("latin1") }),
  );
  for (const chunk of chunks) splitter.push(chunk);
  if (end) splitter.end();
  return events;
}

/** What splitting `text` should give: every `\n`-ended line, its `\r` dropped, or its length when too long. */
function expected(maxBytes: number, text: string, end: boolean): Event[] {
  const parts = text.split("\n");
  const last = parts.pop() as string;
  if (end && last !== "") parts.push(last);
  return parts.map((part) =>
    part.length > maxBytes
      ? { tooLong: part.length, head: part.slice(0, 128) }
      : { line: part.endsWith("\r") ? part.slice(0, -1) : part },
  );
}

/** `text` cut at `cuts` (positions in any order, repeats allowed). */
function chunked(text: string, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...at, text.length]) {
    chunks.push(Buffer.from(text.slice(start, cut), "latin1"));
    start = cut;
  }
  return chunks;
}

describe("LineSplitter", () => {
  test.prop([
    fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r", "{") }),
    fc.array(fc.nat(), { maxLength: 12 }),
    fc.integer({ min: 0, max: 8 }),
    fc.boolean(),
  ])("gives the same lines however the input is cut into chunks", (text, cuts, maxBytes, end) => {
    expect(splitAll(maxBytes, chunked(text, cuts), end)).toStrictEqual(expected(maxBytes, text, end));
  });

  it("keeps a line of exactly the limit, drops one byte more up to its newline and goes on", () => {
    const events = splitAll(4, [Buffer.from("abcd\nabcde"), Buffer.from("fgh"), Buffer.from("ij\nok\n")]);
    expect(events).toStrictEqual([{ line: "abcd" }, { tooLong: 10, head: "abcdefghij" }, { line: "ok" }]);
  });

  it("holds no more than the limit of a long line, and reports its first 128 bytes", () => {
    const events: Event[] = [];
    const splitter = new LineSplitter(
      1024,
      () => {},
      (bytes, head) => events.push({ tooLong: bytes, head: head.toString("latin1") }),
    );
    const chunk = Buffer.alloc(64 * 1024, "x");
    for (let i = 0; i < 200; i += 1) splitter.push(chunk);
    splitter.push(Buffer.from("\n"));
    expect(events).toStrictEqual([{ tooLong: 200 * 64 * 1024, head: "x".repeat(128) }]);
  });

  it("at the end of input, a last line without its newline is a line; nothing pending is nothing", () => {
    expect(splitAll(10, [Buffer.from("a\nlast")], true)).toStrictEqual([{ line: "a" }, { line: "last" }]);
    expect(splitAll(3, [Buffer.from("a\nlast")], true)).toStrictEqual([
      { line: "a" },
      { tooLong: 4, head: "last" },
    ]);
    expect(splitAll(10, [Buffer.from("a\n")], true)).toStrictEqual([{ line: "a" }]);
  });
});

describe("parseLine", () => {
  it("answers a line that is not JSON -32700 with id null", () => {
    for (const text of ["{", "not json", '{"jsonrpc":"2.0","id":1,"method":"ping"', "\u0000"]) {
      expect(parseLine(text)).toMatchObject({ error: { code: -32700 }, id: null, reason: "not JSON" });
    }
  });

  it("answers JSON that is not a JSON-RPC message -32600, under its id only when it reads as a request", () => {
    expect(parseLine("[1]")).toMatchObject({ error: { code: -32600 }, id: null, reason: "not JSON-RPC" });
    expect(parseLine("5")).toMatchObject({ error: { code: -32600 }, id: null });
    expect(parseLine('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}')).toMatchObject({
      error: { code: -32600 },
      id: 7,
    });
    expect(parseLine('{"jsonrpc":"2.0","id":"a","method":5}')).toMatchObject({ id: null });
    expect(parseLine('{"jsonrpc":"2.0","id":1.5,"method":"ping","params":1}')).toMatchObject({ id: null });
    // A malformed response: answering under its id would look like the answer to the client's own request.
    expect(parseLine('{"jsonrpc":"2.0","id":3}')).toMatchObject({ error: { code: -32600 }, id: null });
  });

  // Issue 36, finding 12: JSON.parse rounds an id past 2^53 - 1 (…993 reads as …992), and the line
  // was served under the rounded id: two requests, two replies with one id. HTTP refuses it.
  const UNREADABLE_ID =
    'Invalid Request: "id" must be a string or an integer, not a number beyond 9007199254740991 (2^53 - 1) in magnitude, which cannot be read exactly: send such an id as a string';

  test.prop([
    fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }),
    fc.boolean(),
    fc.constantFrom('"method":"ping"', '"method":"tools/list","params":{}', '"result":{}'),
  ])(
    "answers an id past 2^53 - 1 as HTTP does: -32600 with id null, never under the rounded id",
    (magnitude, negative, rest) => {
      const line = `{"jsonrpc":"2.0","id":${negative ? "-" : ""}${magnitude},${rest}}`;
      expect(parseLine(line)).toStrictEqual({
        error: { code: -32600, message: UNREADABLE_ID },
        id: null,
        reason: "not JSON-RPC",
      });
    },
  );

  test.prop([fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })])(
    "passes a request with a safe integer id on, its id exact",
    (id) => {
      expect(parseLine(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`)).toStrictEqual({
        message: { jsonrpc: "2.0", id, method: "ping" },
      });
    },
  );

  it("passes a JSON-RPC message on", () => {
    expect(parseLine(' {"jsonrpc":"2.0","id":1,"method":"ping"} ')).toStrictEqual({
      message: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
  });
});

function transportOn(options: { maxLineBytes?: number; output?: Writable } = {}) {
  const input = new PassThrough();
  const output = options.output ?? new PassThrough();
  const messages: JSONRPCMessage[] = [];
  const bad: BadLine[] = [];
  const transport = new StdioLineTransport({
    input,
    output,
    maxLineBytes: options.maxLineBytes,
    onBadLine: (line) => bad.push(line),
  });
  transport.onmessage = (message) => messages.push(message);
  return { input, output, transport, messages, bad };
}

function readLines(output: PassThrough): unknown[] {
  const text = String(output.read() ?? "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

describe("StdioLineTransport", () => {
  it("answers each bad line itself, in order, passes the good ones on, and tells when stdin has ended", async () => {
    const { input, output, transport, messages, bad } = transportOn({ maxLineBytes: 64 });
    const ended = new Promise<void>((resolve) => {
      transport.onend = resolve;
    });
    await transport.start();
    input.write(`${"x".repeat(100)}\n`);
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n');
    input.write("\n \t\r\n");
    input.write("garbage\n");
    input.write('{"jsonrpc":"2.0","id":9,"method":"ping","params":[]}\n');
    input.end('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    await ended;

    expect(messages).toStrictEqual([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);
    expect(readLines(output as PassThrough)).toStrictEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: expect.stringContaining("100 bytes is over the limit of 64 bytes") },
      },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not JSON" } },
      { jsonrpc: "2.0", id: 9, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
    ]);
    expect(bad).toStrictEqual([
      { reason: "too long", bytes: 100, prefix: `${"x".repeat(32)}…`, code: -32700 },
      { reason: "not JSON", bytes: 7, prefix: "garbage", code: -32700 },
      { reason: "not JSON-RPC", bytes: 52, prefix: '{"jsonrpc":"2.0","id":9,"method"…', code: -32600 },
    ]);
  });

  it("sends the server's messages as lines", async () => {
    const { output, transport } = transportOn();
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(readLines(output as PassThrough)).toStrictEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  });

  it("stops reading stdin while stdout does not take its answers, and reads on once it drains", async () => {
    const written: string[] = [];
    let release: (() => void) | undefined;
    const output = new Writable({
      highWaterMark: 16,
      write(chunk, _encoding, callback) {
        written.push(String(chunk));
        release = callback;
      },
    });
    const { input, transport } = transportOn({ output });
    await transport.start();
    input.write("bad\nbad\nbad\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.isPaused()).toBe(true);
    while (release !== undefined) {
      const next = release;
      release = undefined;
      next();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written).toHaveLength(3);
    expect(input.isPaused()).toBe(false);
  });

  it("close() stops reading and reports the close once", async () => {
    const { input, transport, messages } = transportOn();
    const onclose = vi.fn();
    transport.onclose = onclose;
    await transport.start();
    await transport.close();
    await transport.close();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages).toStrictEqual([]);
    expect(onclose).toHaveBeenCalledTimes(1);
  });
});

describe("RateLimitedLog", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("logs at most `limit` lines a window and one count of the rest, at the window's end or on flush", () => {
    vi.useFakeTimers();
    let now = 0;
    const lines: [string, Record<string, unknown>][] = [];
    const log = new RateLimitedLog(
      (message, attributes) => lines.push([message, attributes]),
      3,
      1_000,
      () => now,
    );
    for (let i = 0; i < 1_000; i += 1) log.log("bad", { i });
    expect(lines.map(([, attributes]) => attributes)).toStrictEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    now = 1_000;
    vi.advanceTimersByTime(1_000);
    expect(lines.at(-1)).toStrictEqual(["more bad input, not logged one by one", { count: 997 }]);

    now = 5_000;
    for (let i = 0; i < 5; i += 1) log.log("bad", { i });
    log.flush();
    log.flush();
    expect(lines.slice(4)).toStrictEqual([
      ["bad", { i: 0 }],
      ["bad", { i: 1 }],
      ["bad", { i: 2 }],
      ["more bad input, not logged one by one", { count: 2 }],
    ]);
  });
});
