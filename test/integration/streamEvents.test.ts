import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionStoreError } from "../../src/sessions/store.js";
import {
  DynamoStreamEvents,
  EVENT_KEEP_SECONDS,
  eventId,
  parseEventId,
  splitData,
} from "../../src/sessions/streamEvents.js";
import { type Dynalite, startDynalite } from "../support/dynalite.js";

// The stream event store against a DynamoDB API server (dynalite), in the sessions table's own shape.

describe("stream events in the sessions table (dynalite)", () => {
  let dynamo: Dynalite;
  let now = Date.now();
  let store: DynamoStreamEvents;

  beforeAll(async () => {
    dynamo = await startDynalite();
    store = new DynamoStreamEvents({
      tableName: dynamo.tableName,
      region: "us-east-1",
      endpoint: dynamo.endpoint,
      now: () => now,
    });
  }, 60_000);

  afterAll(async () => {
    await dynamo?.close();
  });

  const event = (streamId: string, seq: number, data: string, final = false) => ({
    streamId,
    seq,
    sessionId: "session-a",
    data,
    final,
    writerDeadline: 1_700_000_900_000,
    replyTo: "q-1",
  });

  it("gives a stream's events back in order from any place, up to the first one not written yet", async () => {
    const streamId = randomUUID();
    for (const seq of [1, 2, 3]) await store.append(event(streamId, seq, `{"n":${seq}}`));
    // 5 without 4: a gap, which a resumption never reads past.
    await store.append(event(streamId, 5, '{"n":5}', true));
    expect((await store.from(streamId, 1, 10)).map((stored) => stored.seq)).toStrictEqual([1, 2, 3]);
    expect((await store.from(streamId, 2, 1)).map((stored) => stored.data)).toStrictEqual(['{"n":2}']);
    expect(await store.from(streamId, 4, 10)).toStrictEqual([]);
    const [last] = await store.from(streamId, 5, 10);
    expect(last).toStrictEqual(event(streamId, 5, '{"n":5}', true));
    expect(await store.from(randomUUID(), 1, 10)).toStrictEqual([]);
  });

  it("keeps an event larger than one DynamoDB item in parts, and gives it back whole", async () => {
    const streamId = randomUUID();
    // 250,000 units of 3-byte characters and emoji: 750 KB of UTF-8, over the 400 KB item limit.
    const data = JSON.stringify({ text: "€😀".repeat(83_334) });
    await store.append(event(streamId, 1, data, true));
    const [whole] = await store.from(streamId, 1, 1);
    expect(whole?.data.length).toBe(data.length);
    expect(whole?.data === data).toBe(true);
  });

  it("counts an event past its keeping time as gone, whether or not DynamoDB has deleted it yet", async () => {
    const streamId = randomUUID();
    await store.append(event(streamId, 1, "{}"));
    now += (EVENT_KEEP_SECONDS + 1) * 1000;
    try {
      expect(await store.from(streamId, 1, 1)).toStrictEqual([]);
    } finally {
      now = Date.now();
    }
  });

  it("a store that does not answer is a SessionStoreError naming the operation (answered 503), never DynamoDB's own error", async () => {
    await dynamo.cutOff();
    try {
      const failed = await store.from(randomUUID(), 1, 1).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(SessionStoreError);
      expect((failed as Error).message).toMatch(/^stream events read failed: \w+$/);
      await expect(store.append(event(randomUUID(), 1, "{}"))).rejects.toThrow(
        /^stream events append failed: /,
      );
    } finally {
      await dynamo.restore();
    }
  });

  it("keeps beside each event when its writer ends and whom the reply answers: an id as it was, a batch's ids", async () => {
    const streamId = randomUUID();
    const kept = [
      { ...event(streamId, 1, "{}"), replyTo: 7 },
      { ...event(streamId, 2, "{}"), replyTo: "7" },
      { ...event(streamId, 3, "{}"), replyTo: ["a", 2] },
      { ...event(streamId, 4, "{}"), replyTo: null },
    ];
    for (const each of kept) await store.append(each);
    expect(await store.from(streamId, 1, 10)).toStrictEqual(kept);
  });

  it("notes a cancellation per session and request id, the id's type included", async () => {
    const receivedAt = now;
    await store.cancel("session-a", 7);
    expect(await store.isCancelled("session-a", 7, receivedAt)).toBe(true);
    expect(await store.isCancelled("session-a", "7", receivedAt)).toBe(false);
    expect(await store.isCancelled("session-b", 7, receivedAt)).toBe(false);
    expect(await store.isCancelled("session-a", 8, receivedAt)).toBe(false);
  });

  it("a cancellation noted before a request arrived never cancels it, an hour's keeping or not", async () => {
    const noted = now;
    await store.cancel("session-c", "q");
    // The same id, a request that arrived later (a minute, or a millisecond): the note was of another.
    expect(await store.isCancelled("session-c", "q", noted + 60_000)).toBe(false);
    expect(await store.isCancelled("session-c", "q", noted + 1)).toBe(false);
    // A request that arrived before the note is the one it cancels.
    expect(await store.isCancelled("session-c", "q", noted)).toBe(true);
    expect(await store.isCancelled("session-c", "q", noted - 5_000)).toBe(true);
  });
});

describe("stream event ids and parts", () => {
  it("an id names its stream and place, and nothing else parses", () => {
    const streamId = randomUUID();
    expect(parseEventId(eventId(streamId, 12))).toStrictEqual({ streamId, seq: 12 });
    for (const text of [
      "",
      "x.1",
      `${streamId}.0`,
      `${streamId}.-1`,
      `${streamId}.1.2`,
      `${streamId}`,
      ` ${streamId}.1`,
    ]) {
      expect(parseEventId(text), text).toBeUndefined();
    }
  });

  it("parts join back to the data, and no part ends in half a surrogate pair", () => {
    let split = 0;
    fc.assert(
      // Data around the part boundaries (100,000 units), ending in any characters: emoji included.
      fc.property(
        fc.integer({ min: 0, max: 200_020 }),
        fc.string({ unit: "binary", maxLength: 40 }),
        (pad, tail) => {
          const data = "x".repeat(pad) + tail;
          const parts = splitData(data);
          expect(parts.join("")).toBe(data);
          if (parts.length > 1) split++;
          for (const part of parts.slice(0, -1)) {
            const last = part.charCodeAt(part.length - 1);
            expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
          }
        },
      ),
      { numRuns: 40 },
    );
    // The property saw data long enough to be split.
    expect(split).toBeGreaterThan(0);
    // An emoji across the boundary moves it back one unit: both halves go in the second part.
    const parts = splitData(`${"x".repeat(99_999)}😀`);
    expect(parts.map((part) => part.length)).toStrictEqual([99_999, 2]);
  });
});
