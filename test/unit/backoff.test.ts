import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { backoffDelay, isRetryableStatus } from "../../src/util/backoff.js";

describe("backoff", () => {
  test.prop([
    fc.nat(40),
    fc.integer({ min: 1, max: 1_000 }),
    fc.integer({ min: 1, max: 100_000 }),
    fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  ])(
    "a delay lies in [ceiling/2, ceiling], ceiling = min(cap, base × 2^attempt)",
    (attempt, baseMs, capMs, r) => {
      const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
      const delay = backoffDelay(attempt, { baseMs, capMs }, () => r);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
      expect(delay).toBeLessThanOrEqual(ceiling);
    },
  );

  test.prop([fc.nat(8)])("the random part spreads racers over the upper half", (attempt) => {
    const backoff = { baseMs: 20, capMs: 10_000 };
    expect(backoffDelay(attempt, backoff, () => 0)).toBe(10 * 2 ** attempt);
    expect(backoffDelay(attempt, backoff, () => 0.999)).toBeGreaterThanOrEqual(19 * 2 ** attempt);
  });
});

describe("isRetryableStatus", () => {
  test.prop([fc.integer({ min: 100, max: 599 })])(
    "only throttling (429) and server errors (5xx) are worth sending again",
    (status) => {
      expect(isRetryableStatus(status)).toBe(status === 429 || status >= 500);
    },
  );
});
