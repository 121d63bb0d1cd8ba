import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { findChange } from "../../src/results/changePoint.js";
import type { QueryRange } from "../../src/results/curves.js";
import { normalStream } from "../support/seededNoise.js";

const DAY = 86_400;

/**
 * Standard normal noise, `count` numbers from a seed (mulberry32 + Box–Muller): fast-check's doubles lean
 * to their bounds on purpose, which is no noise; the seed is what fast-check draws and shrinks.
 */
const gaussians = (count: number) =>
  fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => {
    const next = normalStream(seed);
    return Array.from({ length: count }, next);
  });

/** A range of `steps` + 1 points at a whole-second step, starting at a whole step. */
const rangeOf = (start: number, steps: number, step: number): QueryRange => ({
  start,
  end: start + steps * step,
  step,
});

function pointsOf(range: QueryRange, shape: (t: number) => number, sigma: number, noise: number[]) {
  const points: [number, number][] = [];
  for (let k = 0; range.start + k * range.step <= range.end; k++) {
    const t = range.start + k * range.step;
    points.push([t, shape(t) + sigma * (noise[k % noise.length] as number)]);
  }
  return points;
}

describe("findChange on generated series", () => {
  it("places a step of several noise σ within two steps of it", () => {
    const step = fc
      .record({
        steps: fc.integer({ min: 100, max: 1500 }),
        step: fc.constantFrom(15, 30, 60, 300),
        start: fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }),
        position: fc.double({ min: 0.1, max: 0.9, noNaN: true }),
        level: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        sigma: fc.double({ min: 1e-3, max: 100, noNaN: true }),
        shift: fc.double({ min: 10, max: 100, noNaN: true }),
        up: fc.boolean(),
      })
      .chain((series) => gaussians(series.steps + 1).map((noise) => ({ ...series, noise })));
    fc.assert(
      fc.property(step, ({ steps, step, start, position, level, sigma, shift, up, noise }) => {
        const range = rangeOf(start - (start % step), steps, step);
        const at = range.start + Math.round(position * steps) * step;
        const jump = (up ? 1 : -1) * shift * sigma;
        const change = findChange(
          pointsOf(range, (t) => (t >= at ? level + jump : level), sigma, noise),
          range,
        );
        expect(change).toBeDefined();
        expect(Math.abs((change?.at ?? Number.NaN) - at)).toBeLessThanOrEqual(2 * step);
        expect(Math.sign((change?.after ?? 0) - (change?.before ?? 0))).toBe(up ? 1 : -1);
      }),
      { numRuns: 150 },
    );
  });

  it("reports no change for a flat series, nor for a periodic one seen over a whole period or more", () => {
    let cycles = 0;
    // Windows shorter than a day (two periods or more within them: a cycle seen over one period is a
    // crest and a trough, which two lines, a ramp, can fit within its noise), a daily cycle over one to
    // three days, or any period over at least two of them: over one to two periods of a cycle a little
    // off a day's, a daily cycle and a change fit as well (see changePoint.ts).
    const periodic = fc
      .record({
        kind: fc.constantFrom("flat", "short", "daily", "repeated"),
        window: fc.double({ min: 0.2, max: 1, noNaN: true }),
        periods: fc.double({ min: 2, max: 4, noNaN: true }),
        days: fc.double({ min: 1, max: 3, noNaN: true }),
        step: fc.constantFrom(30, 60, 120, 300),
        start: fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }),
        phase: fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        amplitude: fc.double({ min: 0, max: 200, noNaN: true }),
        sigma: fc.double({ min: 0.01, max: 5, noNaN: true }),
      })
      .chain((series) => gaussians(12_000).map((noise) => ({ ...series, noise })));
    fc.assert(
      fc.property(
        periodic,
        ({ kind, window, periods, days, step, start, phase, amplitude, sigma, noise }) => {
          const seconds =
            kind === "daily"
              ? days * DAY
              : kind === "repeated"
                ? Math.max(2, periods) * 0.3 * DAY * days
                : window * DAY;
          const period =
            kind === "daily" ? DAY : kind === "repeated" ? seconds / Math.max(2, periods) : seconds / periods;
          const range = rangeOf(start - (start % step), Math.max(40, Math.floor(seconds / step)), step);
          const wave = kind === "flat" ? 0 : amplitude;
          const change = findChange(
            pointsOf(range, (t) => 100 + wave * Math.sin((2 * Math.PI * t) / period + phase), sigma, noise),
            range,
          );
          // The interesting case: a cycle whose halves differ by far more than the noise.
          if (kind !== "flat" && wave > 20 * sigma) cycles++;
          expect(change).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
    // How many runs draw a cycle far above its noise varies with fast-check's seed (from 7 to 15 of 150).
    expect(cycles).toBeGreaterThan(0);
  });

  it("places a step on a linear trend within two steps of it, and reports none for the trend alone", () => {
    let steps = 0;
    let trends = 0;
    const trended = fc
      .record({
        steps: fc.integer({ min: 24, max: 1500 }),
        step: fc.constantFrom(15, 60, 300),
        start: fc.integer({ min: 1_600_000_000, max: 1_800_000_000 }),
        position: fc.double({ min: 0.2, max: 0.8, noNaN: true }),
        level: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        sigma: fc.double({ min: 1e-3, max: 100, noNaN: true }),
        // The trend's whole rise or fall over the window, in σ: up to far more than the step.
        rise: fc.double({ min: -200, max: 200, noNaN: true }),
        // A trend alone one draw in three (fast-check's default, one in six, drew 20 of 200 now and then).
        shift: fc.option(fc.double({ min: 20, max: 60, noNaN: true }), { nil: undefined, freq: 3 }),
        up: fc.boolean(),
      })
      .chain((series) => gaussians(series.steps + 1).map((noise) => ({ ...series, noise })));
    fc.assert(
      fc.property(
        trended,
        ({ steps: count, step, start, position, level, sigma, rise, shift, up, noise }) => {
          const range = rangeOf(start - (start % step), count, step);
          const at = range.start + Math.round(position * count) * step;
          const trend = (t: number) => level + (rise * sigma * (t - range.start)) / (range.end - range.start);
          const jump = shift === undefined ? 0 : (up ? 1 : -1) * shift * sigma;
          const change = findChange(
            pointsOf(range, (t) => trend(t) + (t >= at ? jump : 0), sigma, noise),
            range,
          );
          if (shift === undefined) {
            trends++;
            expect(change).toBeUndefined();
          } else {
            steps++;
            expect(change).toBeDefined();
            expect(Math.abs((change?.at ?? Number.NaN) - at)).toBeLessThanOrEqual(2 * step);
            expect(Math.sign((change?.after ?? 0) - (change?.before ?? 0))).toBe(up ? 1 : -1);
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(steps).toBeGreaterThan(20);
    expect(trends).toBeGreaterThan(20);
  });
});
