/** A bounded least-recently-used map: memory stays flat however many sessions pass through a container. */
export class WarmCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly limit: number,
    private readonly onEvict: (value: T) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): T | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** The value, without making it the most recently used. */
  peek(key: string): T | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: T): void {
    this.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.onEvict(value);
  }
}
