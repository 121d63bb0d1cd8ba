import { describe, expect, it } from "vitest";
import { RESPONSE_LIMIT_BYTES, STREAMED_LIMITS } from "../../src/routes/ceiling.js";
import { lambdaContext } from "../support/events.js";
import { ENTRY, type HttpResult, makeHandler, postMcp } from "../support/handler.js";

/** A handler that accepts request bodies up to Lambda's own 6 MB request limit. */
const handler = makeHandler({ MAX_BODY_BYTES: "6291456" });
/** What Lambda sends back for an HTTP result: the body is a JSON string inside the payload, escaped again. */
const payloadBytes = (result: unknown) => Buffer.byteLength(JSON.stringify(result), "utf8");

interface ErrorReply {
  id: unknown;
  error?: { code: number; message: string };
  result?: unknown;
}

/**
 * The streaming entry's limit is a stream's 200 MB, its body sent as it is (routes/ceiling.ts): what
 * overflows a buffered response is answered whole there, which the same requests show.
 */
const streamed = ENTRY === "streaming";

describe("no response exceeds Lambda's limit, whatever the request echoes back", () => {
  it("a reply whose id alone would overflow the response is answered with a short error instead (streamed: whole)", async () => {
    // Every quote in the id costs 2 bytes in the body and 4 in Lambda's payload: ~12 MB if echoed.
    const id = '"'.repeat(3_000_000);
    const http = await postMcp(handler, { jsonrpc: "2.0", id, method: "ping" });
    if (streamed) {
      expect(Buffer.byteLength(http.body)).toBeLessThanOrEqual(STREAMED_LIMITS.responseBytes);
      expect(JSON.parse(http.body)).toStrictEqual({ jsonrpc: "2.0", id, result: {} });
      return;
    }
    expect(payloadBytes(http)).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
    expect(http.statusCode).toBe(200);
    const reply = JSON.parse(http.body) as ErrorReply;
    expect(reply.id).toBeNull();
    expect(reply.error?.code).toBe(-32603);
    expect(reply.error?.message).toMatch(/^Response too large: this reply was \d+ bytes/);
  });

  it("in a batch, only the replies that do not fit are replaced; the others keep their results (streamed: all fit)", async () => {
    const bigId = '"'.repeat(2_500_000);
    const http = (await postMcp(handler, [
      { jsonrpc: "2.0", id: bigId, method: "ping" },
      { jsonrpc: "2.0", id: 7, method: "ping" },
    ])) as HttpResult;
    if (streamed) {
      expect(JSON.parse(http.body)).toStrictEqual([
        { jsonrpc: "2.0", id: bigId, result: {} },
        { jsonrpc: "2.0", id: 7, result: {} },
      ]);
      return;
    }
    expect(payloadBytes(http)).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
    const replies = JSON.parse(http.body) as ErrorReply[];
    expect(replies).toHaveLength(2);
    expect(replies[0]?.error?.message).toMatch(/^Response too large/);
    expect(replies[1]).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });

  it("a direct invocation's result is held to the same limit (an Invoke is buffered, even of the streaming entry)", async () => {
    const id = "x".repeat(6_100_000);
    const result = (await handler({ jsonrpc: "2.0", id, method: "ping" }, lambdaContext())) as ErrorReply;
    expect(payloadBytes(result)).toBeLessThanOrEqual(RESPONSE_LIMIT_BYTES);
    expect(result.id).toBeNull();
    expect(result.error?.message).toMatch(/^Response too large/);
  });

  it("ordinary replies are untouched", async () => {
    const http = await postMcp(handler, { jsonrpc: "2.0", id: "a".repeat(1_000), method: "ping" });
    expect(JSON.parse(http.body)).toEqual({ jsonrpc: "2.0", id: "a".repeat(1_000), result: {} });
  });
});
