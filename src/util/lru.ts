/**
 * A map that keeps at most `maxSize` entries: past that, the least recently used is forgotten (an LRU),
 * so a stream of distinct keys (sessions, regions, profiles, workspace ids) cannot grow memory without
 * bound. `get` and `set` make an entry the most recently used; `peek`, `has` and `keys` do not.
 *
 * `onRemove` hears of each value that leaves: evicted to make room, replaced by a `set` of another value
 * under its key, or deleted. It runs once the entry is gone, so it sees the map without it.
 */
export class Lru<K, V> {
  /** Least recently used first: a Map iterates in insertion order, and a use re-inserts its entry. */
  private readonly entries = new Map<K, V>();

  constructor(
    readonly maxSize: number,
    private readonly onRemove?: (value: V, key: K) => void,
  ) {
    if (!Number.isInteger(maxSize) || maxSize < 1)
      throw new RangeError(`LRU size must be an integer >= 1: ${maxSize}`);
  }

  /** How many entries are kept now (never more than `maxSize`). */
  get size(): number {
    return this.entries.size;
  }

  /** True when the key has an entry (its recency unchanged). */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The key's value, which becomes the most recently used; undefined when there is none. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The key's value, its recency unchanged; undefined when there is none. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /**
   * Keeps `value` under `key` as the most recently used, then forgets the least recently used entries
   * past `maxSize`. A value it replaces is removed (unless it is the same value, which stays).
   */
  set(key: K, value: V): void {
    if (this.entries.has(key)) {
      const old = this.entries.get(key) as V;
      this.entries.delete(key);
      if (old !== value) this.onRemove?.(old, key);
    }
    this.entries.set(key, value);
    while (this.entries.size > this.maxSize) {
      const oldest = this.entries.keys().next().value as K;
      this.delete(oldest);
    }
  }

  /** Forgets the key's entry; false when there was none. */
  delete(key: K): boolean {
    if (!this.entries.has(key)) return false;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.onRemove?.(value, key);
    return true;
  }

  /** The keys, least recently used first. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }
}
