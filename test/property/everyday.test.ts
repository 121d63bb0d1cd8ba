import { fc } from "@fast-check/vitest";
import {
  CallToolRequestSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { hasEverydayParams, isEverydayMessage } from "../../src/protocol/everyday.js";

// The hand-written checks may only ever accept what the SDK's schemas accept: they skip the schema.

const oddValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 53, -(2 ** 53), 1e21, 0.5, Number.NaN),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant(new Date(0)),
  fc.constant(Object.create(null) as object),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);
const key = fc.constantFrom(
  "name",
  "arguments",
  "cursor",
  "_meta",
  "task",
  "extra",
  "__proto__",
  "constructor",
  "progressToken",
  RELATED_TASK_META_KEY,
);
/** Mostly a value of the right sort, else one of any sort. */
const mostly = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: oddValue });
/** An object mixing the keys params and `_meta` know with others, each with a value of any sort. */
const looseObject = (value: fc.Arbitrary<unknown>) =>
  fc.array(fc.tuple(key, value), { maxLength: 3 }).map((entries) => {
    const object: Record<string, unknown> = {};
    for (const [name, entry] of entries) {
      Object.defineProperty(object, name, {
        value: entry,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    return object;
  });
const meta = fc.oneof(oddValue, looseObject(fc.oneof(oddValue, fc.string({ maxLength: 4 }))));
const params = fc.oneof(
  { weight: 1, arbitrary: oddValue },
  { weight: 1, arbitrary: looseObject(fc.oneof(oddValue, meta, looseObject(oddValue))) },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        name: mostly(fc.string({ maxLength: 10 })),
        arguments: mostly(looseObject(oddValue)),
        cursor: mostly(fc.string({ maxLength: 10 })),
        _meta: meta,
        task: oddValue,
      },
      { requiredKeys: [] },
    ),
  },
);
/** `_meta` as a client sends it: an object of a few keys, now and then one the SDK gives a shape. */
const clientMeta = looseObject(oddValue);
/**
 * Params shaped as each fast-pathed method takes them, each part now and then of another sort: without
 * them, `params` above makes tools/call params the fast path takes in about one run in a thousand.
 */
const shapedParams = [
  fc.record(
    {
      name: mostly(fc.string({ maxLength: 10 })),
      arguments: mostly(looseObject(oddValue)),
      _meta: mostly(clientMeta),
    },
    { requiredKeys: ["name"] },
  ),
  fc.record(
    { cursor: mostly(fc.string({ maxLength: 10 })), _meta: mostly(clientMeta) },
    { requiredKeys: [] },
  ),
  fc.record({ _meta: mostly(clientMeta) }, { requiredKeys: [] }),
];
/** Mostly well-formed messages, each part now and then of another sort, now and then an extra key. */
const message = fc
  .record(
    {
      jsonrpc: mostly(fc.constant("2.0")),
      id: mostly(fc.oneof(fc.string({ maxLength: 6 }), fc.integer())),
      method: mostly(fc.constantFrom("tools/call", "tools/list", "ping", "notifications/initialized")),
      params,
      extra: fc.option(fc.tuple(fc.constantFrom("result", "error", "extra", "__proto__"), oddValue)),
    },
    { requiredKeys: ["jsonrpc", "method"] },
  )
  .map(({ extra, ...value }) => {
    if (extra !== null && extra !== undefined) {
      Object.defineProperty(value, extra[0], {
        value: extra[1],
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    return value as Record<string, unknown>;
  })
  // Half as they arrive (through JSON: no undefined, no class instances, `__proto__` as an own key).
  .chain((value) =>
    fc.constantFrom(value, JSON.parse(JSON.stringify(value) ?? "null") as Record<string, unknown>),
  );

const SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean } }>([
  ["tools/call", CallToolRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["ping", PingRequestSchema],
]);

describe("everyday shapes, recognised without the SDK's schemas", () => {
  // Each property asserts only for what the fast path accepts: it also counts those, so that a generator
  // that stopped producing them (every run vacuously true) fails instead of passing.
  it("a message taken as an everyday request or notification is one the SDK's strict schema accepts", () => {
    const taken = { request: 0, notification: 0 };
    fc.assert(
      fc.property(message, (value) => {
        if (isEverydayMessage(value, true)) {
          taken.request++;
          expect(JSONRPCRequestSchema.safeParse(value).success).toBe(true);
        }
        if (isEverydayMessage(value, false)) {
          taken.notification++;
          expect(JSONRPCNotificationSchema.safeParse(value).success).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    expect(taken.request).toBeGreaterThan(0);
    expect(taken.notification).toBeGreaterThan(0);
  });

  it("params taken as everyday for a method are params that method's SDK schema accepts", () => {
    const methods = [...SCHEMAS.keys(), "initialize", "logging/setLevel"];
    const taken = new Map<string, number>();
    fc.assert(
      fc.property(fc.constantFrom(...methods), fc.oneof(params, ...shapedParams), (method, value) => {
        if (!hasEverydayParams(method, value)) return;
        taken.set(method, (taken.get(method) ?? 0) + 1);
        const schema = SCHEMAS.get(method);
        expect(schema).toBeDefined();
        expect(schema?.safeParse({ method, params: value }).success).toBe(true);
      }),
      { numRuns: 3000 },
    );
    // Every method with a fast path took some params; the others never any.
    for (const method of SCHEMAS.keys()) expect(taken.get(method) ?? 0, method).toBeGreaterThan(0);
    expect([...taken.keys()].filter((method) => !SCHEMAS.has(method))).toEqual([]);
  });

  it("what clients send every day takes the fast path; anything unusual is left to the schema", () => {
    const call = { name: "GetServerInfo", arguments: { query: "up" }, _meta: { "example.com/x": 1 } };
    expect(isEverydayMessage({ jsonrpc: "2.0", id: 7, method: "tools/call", params: call }, true)).toBe(true);
    expect(isEverydayMessage({ jsonrpc: "2.0", method: "notifications/initialized" }, false)).toBe(true);
    expect(hasEverydayParams("tools/call", call)).toBe(true);
    expect(hasEverydayParams("tools/call", { name: "GetServerInfo" })).toBe(true);
    expect(hasEverydayParams("tools/list", undefined)).toBe(true);
    expect(hasEverydayParams("tools/list", { cursor: "c" })).toBe(true);
    expect(hasEverydayParams("ping", {})).toBe(true);

    expect(isEverydayMessage({ jsonrpc: "2.0", id: 2 ** 53, method: "ping" }, true)).toBe(false);
    expect(isEverydayMessage({ jsonrpc: "2.0", id: 1, method: "ping", extra: 1 }, true)).toBe(false);
    expect(hasEverydayParams("tools/call", { name: "X", _meta: { progressToken: 1 } })).toBe(false);
    expect(hasEverydayParams("tools/call", { name: "X", task: {} })).toBe(false);
    expect(hasEverydayParams("tools/call", { name: 1 })).toBe(false);
    expect(hasEverydayParams("initialize", {})).toBe(false);
  });
});
