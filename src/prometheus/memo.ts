import { Lru } from "../lru.js";

/**
 * Values built once per key and kept by whoever owns the memo (one handler's clients, signers,
 * endpoints), at most `maxSize` of them: past that, the least recently used is forgotten (an LRU), so
 * a stream of distinct keys (regions, profiles, workspace ids) cannot grow memory without bound. A
 * promise that rejects is forgotten, so the next call tries again.
 *
 * A forgotten value is only dropped from the memo: whoever still holds it (a call in flight) keeps
 * using it, and it is rebuilt on its key's next use.
 */
export class Memo<V> {
  private readonly values: Lru<string, V>;

  constructor(readonly maxSize: number) {
    this.values = new Lru(maxSize);
  }

  /** How many values are kept now (never more than `maxSize`). */
  get size(): number {
    return this.values.size;
  }

  /** The value for the key made of `parts` (undefined parts count as ""), built by `create` on first use. */
  get(parts: readonly (string | undefined)[], create: () => V): V {
    const key = parts.map((part) => part ?? "").join("\u0000");
    if (this.values.has(key)) return this.values.get(key) as V;
    const value = create();
    this.values.set(key, value);
    if (value instanceof Promise) {
      value.catch(() => {
        if (this.values.peek(key) === value) this.values.delete(key);
      });
    }
    return value;
  }
}
