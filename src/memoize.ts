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
 * `make`, called on first use only: every call shares the one promise it returned, pending or settled,
 * so concurrent callers never start a second one. A `make` that throws instead of returning a promise
 * keeps nothing: the throw reaches the caller, and the next call runs `make` again.
 */
export function memoize<T>(make: () => Promise<T>, options: MemoizeOptions): () => Promise<T> {
  let shared: Promise<T> | undefined;
  return () => {
    if (shared !== undefined) return shared;
    const made = make();
    shared = made;
    if (options.onRejection === "retry") {
      // Registered before any caller's handler, so a caller that retries from its own sees it forgotten.
      made.catch(() => {
        if (shared === made) shared = undefined;
      });
    }
    return made;
  };
}
