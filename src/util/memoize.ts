/**
 * The one memoizer: values built once and shared, kept in the one cache (an Lru). `Memo` keeps one value
 * per key (a handler's clients, signers, endpoints), `memoize` one value in all (a container's resource,
 * a request's bridge).
 */
import { Lru } from "./lru.js";

export interface MemoizeOptions {
  /**
   * What a rejection does to the shared promise. `keep`: every later call gets the same rejection (one
   * attempt, as for the bridge of one request). `retry`: it is forgotten as soon as it settles, so the
   * next call runs `make` again (a resource kept for the container, which one failure must not break
   * for good); the calls made while it was pending still share that one rejection.
   */
  onRejection: "keep" | "retry";
}

/**
 * Values built once per key and kept by whoever owns the memo, at most `maxSize` of them: past that, the
 * least recently used is forgotten (an LRU), so a stream of distinct keys (regions, profiles, workspace
 * ids) cannot grow memory without bound. A promise that rejects is forgotten, so the next call tries
 * again, unless `onRejection` is `keep`.
 *
 * A forgotten value is only dropped from the memo: whoever still holds it (a call in flight) keeps
 * using it, and it is rebuilt on its key's next use.
 */
export class Memo<V> {
  private readonly values: Lru<string, V>;

  constructor(
    readonly maxSize: number,
    private readonly options: MemoizeOptions = { onRejection: "retry" },
  ) {
    this.values = new Lru(maxSize);
  }

  /** How many values are kept now (never more than `maxSize`). */
  get size(): number {
    return this.values.size;
  }

  /**
   * The value for the key made of `parts` (undefined parts count as ""), built by `create` on first use.
   * A `create` that throws keeps nothing: the throw reaches the caller, and the next call runs it again.
   */
  get(parts: readonly (string | undefined)[], create: () => V): V {
    const key = parts.map((part) => part ?? "").join("\u0000");
    if (this.values.has(key)) return this.values.get(key) as V;
    const value = create();
    this.values.set(key, value);
    if (this.options.onRejection === "retry" && value instanceof Promise) {
      // Registered before any caller's handler, so a caller that retries from its own sees it forgotten.
      value.catch(() => {
        if (this.values.peek(key) === value) this.values.delete(key);
      });
    }
    return value;
  }
}

const ONE_VALUE: readonly string[] = [];

/**
 * `make`, called on first use only: every call shares the one promise it returned, pending or settled,
 * so concurrent callers never start a second one. A `make` that throws instead of returning a promise
 * keeps nothing: the throw reaches the caller, and the next call runs `make` again.
 */
export function memoize<T>(make: () => Promise<T>, options: MemoizeOptions): () => Promise<T> {
  const memo = new Memo<Promise<T>>(1, options);
  return () => memo.get(ONE_VALUE, make);
}
