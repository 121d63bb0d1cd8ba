const BASE_DELAY_MS = 200;
const MAX_DELAY_MS = 2_000;

/** Exponential backoff with full jitter: a random delay in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt));
}

/** Only these can succeed when sent again: throttling and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
