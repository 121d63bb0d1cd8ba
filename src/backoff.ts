export interface Backoff {
  baseMs: number;
  capMs: number;
}

/**
 * Exponential backoff with equal jitter: a delay in [d/2, d] where d = min(cap, base × 2^attempt).
 * Never zero, so a retry always yields to whoever it is racing; random, so racers spread out.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** attempt);
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}
