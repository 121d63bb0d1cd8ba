import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { Bridge } from "../../src/mcp/bridge/bridge.js";
import { dispatch } from "../../src/mcp/bridge/dispatch.js";
import { testContext } from "../support/context.js";
import { echoServer } from "../support/echoServer.js";

const callerId = fc.oneof(
  fc.integer({ min: -1_000, max: 1_000 }),
  fc.string({ maxLength: 6 }),
  fc.constantFrom(0, 1, "1", ""),
);

interface Entry {
  kind: "request" | "notification";
  id: string | number;
  delayMs: number;
}

const entry: fc.Arbitrary<Entry> = fc.record({
  kind: fc.constantFrom<Entry["kind"]>("request", "request", "request", "notification"),
  id: callerId,
  delayMs: fc.integer({ min: 0, max: 3 }),
});

function toMessage(e: Entry, marker: string): Record<string, unknown> {
  if (e.kind === "notification")
    return {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: marker, progress: 1 },
    };
  return {
    jsonrpc: "2.0",
    id: e.id,
    method: "tools/call",
    params: { name: "echo", arguments: { marker, delayMs: e.delayMs } },
  };
}

describe("id correlation", () => {
  test.prop([fc.array(fc.array(entry, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 })], {
    numRuns: 60,
  })(
    "every reply carries exactly its request's id, type kept, in request order, across concurrent batches on one bridge",
    async (batches) => {
      const bridge = await Bridge.open(() => echoServer());
      const context = testContext(10_000);
      const results = await Promise.all(
        batches.map((batch, b) => {
          const payload = batch.map((e, i) => toMessage(e, `${b}:${i}`));
          return dispatch(payload, { context, bridge: async () => bridge });
        }),
      );
      results.forEach((outcome, b) => {
        const batch = batches[b] ?? [];
        const expected = batch.flatMap((e, i) =>
          e.kind === "request" ? [{ id: e.id, marker: `${b}:${i}` }] : [],
        );
        if (expected.length === 0) {
          expect(outcome.kind).toBe("accepted");
          return;
        }
        expect(outcome.kind).toBe("batch");
        if (outcome.kind !== "batch") return;
        expect(outcome.replies.map((r) => r.message.id)).toStrictEqual(expected.map((e) => e.id));
        outcome.replies.forEach(({ message: reply }, i) => {
          expect("result" in reply && (reply.result.content as { text: string }[])[0]?.text).toBe(
            expected[i]?.marker,
          );
        });
      });
      expect(bridge.inFlight).toBe(0);
      await bridge.close();
    },
  );

  test.prop([callerId, fc.integer({ min: 2, max: 8 })], { numRuns: 40 })(
    "concurrent single requests with the same id never get each other's reply",
    async (id, count) => {
      const bridge = await Bridge.open(() => echoServer());
      const context = testContext(10_000);
      const outcomes = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          dispatch(toMessage({ kind: "request", id, delayMs: (count - i) % 3 }, `m${i}`), {
            context,
            bridge: async () => bridge,
          }),
        ),
      );
      outcomes.forEach((outcome, i) => {
        expect(outcome.kind).toBe("single");
        if (outcome.kind !== "single") return;
        const reply = outcome.reply.message;
        expect(reply.id).toStrictEqual(id);
        expect(typeof reply.id).toBe(typeof id);
        expect("result" in reply && (reply.result.content as { text: string }[])[0]?.text).toBe(`m${i}`);
      });
      await bridge.close();
    },
  );
});

/** An id as a body carries it: its JSON text, and the id a reply must echo (undefined: it cannot be read). */
interface WrittenId {
  text: string;
  echoed: string | number | undefined;
}

const safeInteger = fc.oneof(
  fc.maxSafeInteger(),
  fc.integer({ min: Number.MAX_SAFE_INTEGER - 20, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MIN_SAFE_INTEGER + 20 }),
);

/** Integers past 2^53 - 1 (either sign), and number forms JSON.parse reads as such or as Infinity. */
const unreadableId = fc.oneof(
  fc
    .tuple(fc.boolean(), fc.bigInt({ min: 2n ** 53n, max: 2n ** 53n + 100n }))
    .map(([negative, n]) => `${negative ? "-" : ""}${n}`),
  fc.bigInt({ min: 2n ** 53n, max: 10n ** 40n }).map(String),
  fc.constantFrom("9007199254740992", "9007199254740993", "9.007199254740993e15", "1e300", "-1e400"),
);

const writtenId: fc.Arbitrary<WrittenId> = fc.oneof(
  { weight: 3, arbitrary: safeInteger.map((n) => ({ text: String(n), echoed: n })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((s) => ({ text: JSON.stringify(s), echoed: s })) },
  { weight: 3, arbitrary: unreadableId.map((text) => ({ text, echoed: undefined })) },
);

describe("ids beyond 2^53 among ordinary ones", () => {
  test.prop([fc.array(writtenId, { minLength: 1, maxLength: 12 })], { numRuns: 80 })(
    "a batch read from its JSON text: readable ids are echoed exactly, the others get -32600 with id null, and no id is shared",
    async (ids) => {
      const bridge = await Bridge.open(() => echoServer());
      // Parsed from text, as the HTTP route does: JSON.parse rounds what it cannot hold.
      const body = `[${ids
        .map(
          ({ text }, i) =>
            `{"jsonrpc":"2.0","id":${text},"method":"tools/call","params":{"name":"echo","arguments":{"marker":"m${i}"}}}`,
        )
        .join(",")}]`;
      const outcome = await dispatch(JSON.parse(body), {
        context: testContext(10_000),
        bridge: async () => bridge,
      });
      expect(outcome.kind).toBe("batch");
      if (outcome.kind !== "batch") return;
      expect(outcome.replies).toHaveLength(ids.length);
      outcome.replies.forEach(({ message: reply }, i) => {
        const { echoed } = ids[i] as WrittenId;
        if (echoed === undefined) {
          expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
          return;
        }
        expect(reply.id).toStrictEqual(echoed);
        expect("result" in reply && (reply.result.content as { text: string }[])[0]?.text).toBe(`m${i}`);
      });
      // Two replies share an id only where the caller sent that one id twice; none is a rounded one.
      const sent = new Set(ids.flatMap(({ echoed }) => (echoed === undefined ? [] : [echoed])));
      const replied = outcome.replies.map(({ message }) => message.id).filter((id) => id !== null);
      expect(new Set(replied)).toStrictEqual(sent);
      for (const id of replied) expect(typeof id === "string" || Number.isSafeInteger(id)).toBe(true);
      expect(bridge.inFlight).toBe(0);
      await bridge.close();
    },
  );
});
