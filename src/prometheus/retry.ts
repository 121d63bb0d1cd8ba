import type { Backoff } from "../backoff.js";

/** Between attempts of one Prometheus call. */
export const PROMETHEUS_BACKOFF: Backoff = { baseMs: 200, capMs: 2_000 };

/** Only these can succeed when sent again: throttling and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
