import { vi } from "vitest";

/** The real timer, kept before any test fakes it: waiting for an event polls on it. */
const realSetTimeout = globalThis.setTimeout;

/**
 * A clock the test moves by hand, for code whose waiting is timer logic (a deadline, a cap, a backoff):
 * `setTimeout`, `clearTimeout` and `Date` are vitest's fakes until `vi.useRealTimers()`; `setImmediate`,
 * `process.nextTick`, `performance.now` and I/O stay real, so sockets and files still work. Time passes
 * only through `vi.advanceTimersByTimeAsync`: a test asserts that something did not happen before a
 * moment and did at it, which no load on the machine changes (no duration is measured).
 */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
}

/** Sleeps begun through `timersPromisesOnGlobalTimers` and not yet over. */
let sleeping = 0;

/**
 * `node:timers/promises` with its `setTimeout` on the global timers (looked up at each call), so that
 * code sleeping through it (`await setTimeout(ms, value, { signal })`) follows a fake clock, and the real
 * one otherwise. Vitest's fake timers do not reach that module; a test file that needs them to mocks it:
 *
 * ```ts
 * vi.mock("node:timers/promises", async (original) =>
 *   (await import("../support/fakeClock.js")).timersPromisesOnGlobalTimers(await original()),
 * );
 * ```
 */
export function timersPromisesOnGlobalTimers<T extends object>(original: T): T {
  const sleep = <V>(ms?: number, value?: V, options: { signal?: AbortSignal } = {}): Promise<V> =>
    new Promise<V>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) {
        reject(new DOMException("The operation was aborted", "AbortError"));
        return;
      }
      sleeping++;
      const abort = () => {
        sleeping--;
        globalThis.clearTimeout(timer);
        reject(new DOMException("The operation was aborted", "AbortError"));
      };
      const timer = globalThis.setTimeout(() => {
        sleeping--;
        signal?.removeEventListener("abort", abort);
        resolve(value as V);
      }, ms ?? 1);
      signal?.addEventListener("abort", abort, { once: true });
    });
  return { ...original, setTimeout: sleep };
}

/** A promise, and whether it has settled yet: read without awaiting it. */
export interface Watched<T> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
}

export function watch<T>(promise: Promise<T>): Watched<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  // The test awaits `promise` when it asserts the outcome; until then a rejection is not unhandled.
  watched.catch(() => undefined);
  return {
    promise: watched,
    get settled() {
      return settled;
    },
  };
}

/**
 * Moves the fake clock `ms` on, running every timer that falls due and what they set off, then lets the
 * I/O callbacks already pending run (one turn of the event loop), so that an answer that was due is seen.
 */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Waits, on the real clock whatever the fake one does, until `condition` holds: an event outside the
 * clock's reach (a request reaching a server, a file written). `boundMs` is a generous bound, not a
 * figure: past it the wait fails, saying what did not happen.
 */
export async function waitUntil(condition: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const giveUpAt = performance.now() + boundMs;
  while (!condition()) {
    if (performance.now() > giveUpAt) throw new Error(`${what}: not seen within ${boundMs} ms`);
    await new Promise<void>((resolve) => realSetTimeout(resolve, 5));
  }
}

/**
 * Runs the fake clock on, one timer at a time, until `watched` settles: for code that alternates real
 * I/O with sleeps through `node:timers/promises` (mocked with `timersPromisesOnGlobalTimers`), polling a
 * lock file, say. Before each step it waits, on the real clock, until the code sleeps again.
 */
export async function runClockUntilSettled(watched: Watched<unknown>): Promise<void> {
  while (!watched.settled) {
    await waitUntil(() => watched.settled || sleeping > 0, "the code sleeping again");
    if (!watched.settled) await vi.advanceTimersToNextTimerAsync();
  }
}
