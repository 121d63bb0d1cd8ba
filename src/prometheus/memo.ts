/**
 * Values built once per key and kept by whoever owns the memo (one handler's clients, signers,
 * endpoints). A promise that rejects is forgotten, so the next call tries again.
 */
export class Memo<V> {
  private readonly values = new Map<string, V>();

  /** The value for the key made of `parts` (undefined parts count as ""), built by `create` on first use. */
  get(parts: readonly (string | undefined)[], create: () => V): V {
    const key = parts.map((part) => part ?? "").join("\u0000");
    const known = this.values.get(key);
    if (known !== undefined) return known;
    const value = create();
    this.values.set(key, value);
    if (value instanceof Promise) {
      value.catch(() => {
        if (this.values.get(key) === value) this.values.delete(key);
      });
    }
    return value;
  }
}
