import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { Lru } from "../../src/util/lru.js";

/** An LRU under test, with every removal it reported. */
function recorded(maxSize: number) {
  const removed: [string, number][] = [];
  const lru = new Lru<string, number>(maxSize, (value, key) => removed.push([key, value]));
  return { lru, removed };
}

describe("Lru (a bounded map that forgets the least recently used)", () => {
  it("keeps what is set, up to its bound, and forgets the least recently used past it", () => {
    const { lru, removed } = recorded(3);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.set("c", 3);
    expect(lru.get("a")).toBe(1); // a is now the most recently used
    lru.set("d", 4); // evicts b
    expect(lru.size).toBe(3);
    expect(removed).toEqual([["b", 2]]);
    expect([...lru.keys()]).toEqual(["c", "a", "d"]);
    expect(lru.get("b")).toBeUndefined();
    for (let i = 0; i < 1_000; i++) lru.set(`k${i}`, i);
    expect(lru.size).toBe(3);
    expect(removed).toHaveLength(1 + 1_000);
  });

  it("peek and has leave the order alone; get moves the entry to the end", () => {
    const { lru } = recorded(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.peek("a")).toBe(1);
    expect(lru.has("a")).toBe(true);
    lru.set("c", 3); // a was still the least recently used
    expect(lru.has("a")).toBe(false);
    expect(lru.peek("missing")).toBeUndefined();
    expect(lru.has("missing")).toBe(false);
  });

  it("reports a value replaced under its key, and a deleted one; not a value set again", () => {
    const { lru, removed } = recorded(4);
    lru.set("a", 1);
    lru.set("a", 2);
    expect(removed).toEqual([["a", 1]]);
    lru.set("a", 2);
    expect(removed).toEqual([["a", 1]]);
    expect(lru.delete("a")).toBe(true);
    expect(lru.delete("a")).toBe(false);
    expect(removed).toEqual([
      ["a", 1],
      ["a", 2],
    ]);
    expect(lru.size).toBe(0);
  });

  it("removes an entry before telling of it", () => {
    const seen: boolean[] = [];
    const lru: Lru<string, number> = new Lru(1, (_value, key) => seen.push(lru.has(key)));
    lru.set("a", 1);
    lru.set("b", 2);
    lru.delete("b");
    expect(seen).toEqual([false, false]);
  });

  it("keeps an undefined value as a value", () => {
    const lru = new Lru<string, undefined>(2);
    lru.set("a", undefined);
    lru.set("b", undefined);
    lru.get("a");
    lru.set("c", undefined); // evicts b: the get of a counted as a use
    expect([...lru.keys()]).toEqual(["a", "c"]);
  });

  it("refuses a bound that is not a whole number >= 1", () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => new Lru(size)).toThrow(RangeError);
  });
});

type Operation =
  | { kind: "get" | "peek" | "has" | "delete"; key: string }
  | { kind: "set"; key: string; value: number };

const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constantFrom("get", "peek", "has", "delete"), key }) as fc.Arbitrary<Operation>,
  fc.record({
    kind: fc.constant("set"),
    key,
    value: fc.integer({ min: 0, max: 3 }),
  }) as fc.Arbitrary<Operation>,
);

/** The reference: an array of entries, least recently used first, searched from end to end. */
class Reference {
  entries: [string, number][] = [];
  removed: [string, number][] = [];

  constructor(readonly maxSize: number) {}

  private take(key: string): [string, number] | undefined {
    const at = this.entries.findIndex(([k]) => k === key);
    return at === -1 ? undefined : (this.entries.splice(at, 1)[0] as [string, number]);
  }

  apply(op: Operation): unknown {
    switch (op.kind) {
      case "get": {
        const entry = this.take(op.key);
        if (entry) this.entries.push(entry);
        return entry?.[1];
      }
      case "peek":
        return this.entries.find(([k]) => k === op.key)?.[1];
      case "has":
        return this.entries.some(([k]) => k === op.key);
      case "delete": {
        const entry = this.take(op.key);
        if (entry) this.removed.push(entry);
        return entry !== undefined;
      }
      case "set": {
        const old = this.take(op.key);
        if (old && old[1] !== op.value) this.removed.push(old);
        this.entries.push([op.key, op.value]);
        while (this.entries.length > this.maxSize)
          this.removed.push(this.entries.shift() as [string, number]);
        return undefined;
      }
    }
  }
}

function applyTo(lru: Lru<string, number>, op: Operation): unknown {
  switch (op.kind) {
    case "get":
      return lru.get(op.key);
    case "peek":
      return lru.peek(op.key);
    case "has":
      return lru.has(op.key);
    case "delete":
      return lru.delete(op.key);
    case "set":
      return lru.set(op.key, op.value);
  }
}

describe("Lru against a reference model", () => {
  test.prop([fc.integer({ min: 1, max: 5 }), fc.array(operation, { maxLength: 60 })])(
    "answers, keeps, orders and reports removals as the simple model does, never above its bound",
    (maxSize, operations) => {
      const { lru, removed } = recorded(maxSize);
      const model = new Reference(maxSize);
      for (const op of operations) {
        expect(applyTo(lru, op)).toEqual(model.apply(op));
        expect(lru.size).toBeLessThanOrEqual(maxSize);
        expect([...lru.keys()]).toEqual(model.entries.map(([k]) => k));
        expect(removed).toEqual(model.removed);
      }
    },
  );
});
