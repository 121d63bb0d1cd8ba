/**
 * When to try again and how long to wait first: the one backoff every retry uses (a Prometheus call's
 * attempts in src/prometheus/dataPlane.ts, a session write that lost a race in src/sessions/manager.ts),
 * each with its own bounds.
 */

export interface Backoff {
  baseMs: number;
  capMs: number;
}

/** Between attempts of one Prometheus call. */
export const PROMETHEUS_BACKOFF: Backoff = { baseMs: 200, capMs: 2_000 };

/** Only these HTTP statuses can succeed when sent again: throttling and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Exponential backoff with equal jitter: a delay in [d/2, d] where d = min(cap, base × 2^attempt).
 * Never zero, so a retry always yields to whoever it is racing; random, so racers spread out.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** attempt);
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}
