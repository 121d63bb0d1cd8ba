import { Writable } from "node:stream";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { KEEPALIVE_MS, ResponseOut } from "../../src/lambda/responseStream.js";
import { installStreamingRuntime } from "../support/lambdaStreaming.js";

/** A response stream that keeps what is written, as text, after the HTTP prelude's delimiter. */
function recording() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  (stream as Writable & { setContentType(type: string): void }).setContentType = () => undefined;
  return { stream, body: () => chunks.join("").split("\0").at(-1) ?? "" };
}

describe("ResponseOut", () => {
  beforeAll(() => installStreamingRuntime());
  afterEach(() => vi.useRealTimers());

  it("keeps an open SSE answer in use with a comment line every KEEPALIVE_MS, and stops at its end", async () => {
    vi.useFakeTimers();
    const { stream, body } = recording();
    const out = new ResponseOut(stream);
    out.open(200, { "Content-Type": "text/event-stream" }, true);
    out.write("event: message\ndata: {}\n\n");
    vi.advanceTimersByTime(KEEPALIVE_MS - 1);
    expect(body()).toBe("event: message\ndata: {}\n\n");
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(KEEPALIVE_MS);
    expect(body()).toBe("event: message\ndata: {}\n\n: keepalive\n\n: keepalive\n\n");
    const ended = out.end('event: message\ndata: {"id":1}\n\n');
    vi.advanceTimersByTime(5 * KEEPALIVE_MS);
    await ended;
    expect(body().endsWith('data: {"id":1}\n\n')).toBe(true);
    expect(body().match(/: keepalive/g)).toHaveLength(2);
    // Well inside the front doors' idle limits: a regional REST API closes a stream idle for 5 minutes.
    expect(KEEPALIVE_MS).toBeLessThanOrEqual(30_000);
  });

  it("writes nothing more once the stream broke before its end, and ends at once", async () => {
    const { stream, body } = recording();
    const out = new ResponseOut(stream);
    out.open(200, {}, true);
    out.write("a");
    stream.destroy(new Error("the front door closed it"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.gone.aborted).toBe(true);
    out.write("b");
    await out.end("c");
    expect(body()).toBe("a");
  });
});
