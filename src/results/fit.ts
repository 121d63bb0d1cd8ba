/**
 * A tool result that may be too large to return whole, and can cut itself to a size.
 *
 * @example
 * ```ts
 * const answer = await tool.run(args, call); // a Fittable for the query tools
 * const { value, note } = answer.fit(100_000); // value: compact JSON of at most ~100,000 bytes
 * ```
 */
export interface Fittable {
  /**
   * The result cut to at most about `maxBytes` bytes of compact JSON (the kept elements are measured
   * as Prometheus sent them, so the caller checks the rendering and asks again with less if needed).
   * The same shape as the whole result; with a top-level `truncated` object and a note only if cut.
   * Can be called again with a smaller size: each call cuts from what was kept, never from the last cut.
   */
  fit(maxBytes: number): Fitted;
}

export interface Fitted {
  value: Record<string, unknown>;
  /** Plain words for the model: what was cut, the totals, and how to ask for the rest. */
  note?: string | undefined;
  /**
   * Plain words for the model about a whole result that may not be what it wanted (one that matched
   * nothing): what to check. Never with a note; given only if it fits in the size asked for.
   */
  hint?: string | undefined;
}

export function isFittable(result: unknown): result is Fittable {
  return typeof (result as Partial<Fittable> | null)?.fit === "function";
}

/** What a cut result says in `truncated`: the totals, what was returned, and why and how it was cut. */
export interface Truncation {
  /** `limit`: the call's `limit` argument; `size`: the result budget (MAX_RESULT_BYTES, or the response's share). */
  cut_by: "limit" | "size";
  /** `bytes`: the size of Prometheus's whole answer as received. */
  total: Record<string, number>;
  /** `bytes`: the size of the returned result as compact JSON (without this object). */
  returned: Record<string, number>;
  /** Which elements were kept when some had to go. */
  order: string;
  /** Set when the one series returned had more points than fit: every `every`-th point was kept. */
  thinned?: { every: number; points_before: number; points_after: number };
  /** True when `total` counts only what Prometheus sent, having applied the limit itself. */
  total_is_lower_bound?: boolean;
}

/** UTF-8 bytes of the compact JSON of a value. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
}

/** `1234567` → `1,234,567`: numbers a model reads in a note. */
export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

/** How many of the first entries fit in `room` bytes of a JSON array (each costs its bytes and a comma). */
export function prefixThatFits(entries: ReadonlyArray<{ bytes: number }>, room: number): number {
  let used = 0;
  let count = 0;
  for (const entry of entries) {
    used += entry.bytes + 1;
    if (used > room) break;
    count++;
  }
  return count;
}
