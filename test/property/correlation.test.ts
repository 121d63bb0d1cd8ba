import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { Bridge } from "../../src/bridge/bridge.js";
import { dispatch } from "../../src/bridge/dispatch.js";
import { testContext } from "../helpers/context.js";
import { echoServer } from "../helpers/echoServer.js";

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
        expect(outcome.replies.map((r) => r.id)).toStrictEqual(expected.map((e) => e.id));
        outcome.replies.forEach((reply, i) => {
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
        expect(outcome.reply.id).toStrictEqual(id);
        expect(typeof outcome.reply.id).toBe(typeof id);
        expect(
          "result" in outcome.reply && (outcome.reply.result.content as { text: string }[])[0]?.text,
        ).toBe(`m${i}`);
      });
      await bridge.close();
    },
  );
});
