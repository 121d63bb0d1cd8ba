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
  private readonly values = new Map<string, V>();

  constructor(readonly maxSize: number) {
    if (!Number.isInteger(maxSize) || maxSize < 1) throw new RangeError(`Memo size must be >= 1: ${maxSize}`);
  }

  /** How many values are kept now (never more than `maxSize`). */
  get size(): number {
    return this.values.size;
  }

  /** The value for the key made of `parts` (undefined parts count as ""), built by `create` on first use. */
  get(parts: readonly (string | undefined)[], create: () => V): V {
    const key = parts.map((part) => part ?? "").join("\u0000");
    const known = this.values.get(key);
    if (known !== undefined || this.values.has(key)) {
      // Most recently used last: a Map iterates in insertion order.
      this.values.delete(key);
      this.values.set(key, known as V);
      return known as V;
    }
    const value = create();
    this.values.set(key, value);
    while (this.values.size > this.maxSize) {
      const oldest = this.values.keys().next().value as string;
      this.values.delete(oldest);
    }
    if (value instanceof Promise) {
      value.catch(() => {
        if (this.values.get(key) === value) this.values.delete(key);
      });
    }
    return value;
  }
}
