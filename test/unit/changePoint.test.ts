import { describe, expect, it } from "vitest";
import { MIN_SCORE } from "../../src/results/changeFits.js";
import { findChange } from "../../src/results/changePoint.js";
import type { QueryRange } from "../../src/results/curves.js";
import { normalStream } from "../support/seededNoise.js";

const DAY = 86_400;
const START = 1_700_000_000;
/** A day at a 60 s step: 1,441 points, bucketed by 8 steps. */
const day: QueryRange = { start: START, end: START + DAY, step: 60 };

/** A seeded normal noise stream: the same numbers every run. */
const noise = normalStream;

function series(
  range: QueryRange,
  shape: (t: number) => number,
  sigma: number,
  seed = 1,
): [number, number][] {
  const gauss = noise(seed);
  const points: [number, number][] = [];
  for (let t = range.start; t <= range.end; t += range.step) points.push([t, shape(t) + sigma * gauss()]);
  return points;
}

const daily = (t: number) => Math.sin((2 * Math.PI * (t % DAY)) / DAY);

describe("findChange", () => {
  it("finds a step at its sample, with the levels on either side", () => {
    const at = START + 15 * 3600 + 7 * 60;
    const change = findChange(
      series(day, (t) => (t >= at ? 0.05 : 0.01), 0.002),
      day,
    );
    expect(change?.at).toBe(at);
    expect(change?.before).toBeCloseTo(0.01, 3);
    expect(change?.after).toBeCloseTo(0.05, 3);
    expect(change?.endedAt).toBeUndefined();
    expect(change?.score).toBeGreaterThan(MIN_SCORE);
  });

  it("finds where a ramp began, with its level at the end as `after`", () => {
    const at = START + DAY - 6 * 3600 + 180;
    const leak = (t: number) => 500 + (t >= at ? ((t - at) / 3600) * 40 : 0);
    const change = findChange(series(day, leak, 1), day);
    expect(Math.abs((change?.at ?? 0) - at)).toBeLessThanOrEqual(2 * day.step);
    expect(change?.before).toBeCloseTo(500, 0);
    expect(Math.abs((change?.after ?? 0) - leak(day.end))).toBeLessThan(3);
    expect(change?.endedAt).toBeUndefined();
  });

  it("finds a spike that ended: its onset, its level and its end", () => {
    const at = START + 5 * 3600 + 3 * 60;
    const ended = at + 20 * 60;
    const change = findChange(
      series(day, (t) => (t >= at && t < ended ? 1.5 : 0.2), 0.02),
      day,
    );
    expect(change?.at).toBe(at);
    expect(change?.endedAt).toBe(ended);
    expect(change?.before).toBeCloseTo(0.2, 2);
    expect(change?.after).toBeCloseTo(1.5, 1);
  });

  it("finds a step on top of a daily cycle, the cycle taken out", () => {
    const at = START + DAY - 3600;
    const change = findChange(
      series(day, (t) => 100 + 20 * daily(t) + (t >= at ? 8 : 0), 1),
      day,
    );
    expect(Math.abs((change?.at ?? 0) - at)).toBeLessThanOrEqual(2 * day.step);
    expect((change?.after ?? 0) - (change?.before ?? 0)).toBeCloseTo(8, 0);
  });

  it("reports none for a flat series with noise, nor for a daily cycle over one or two days", () => {
    expect(
      findChange(
        series(day, () => 100, 1),
        day,
      ),
    ).toBeUndefined();
    expect(
      findChange(
        series(day, (t) => 100 + 30 * daily(t), 1),
        day,
      ),
    ).toBeUndefined();
    const twoDays = { ...day, end: START + 2 * DAY };
    expect(
      findChange(
        series(twoDays, (t) => 100 + 30 * daily(t + 5000), 0.5),
        twoDays,
      ),
    ).toBeUndefined();
  });

  it("reports none for white noise whose last sample alone would fill a bucket", () => {
    // 7,129 points bucketed by 36: the last step falls alone in a bucket of its own, its noise 6 times a
    // bucket's; a sample 2.5σ off, as one in 80 are, was that bucket's mean and read as a step.
    const range: QueryRange = { start: START, end: START + 7128 * 30, step: 30 };
    const points = series(range, () => 100, 0.01);
    const last = points[points.length - 1] as [number, number];
    last[1] = 100 + 2.5 * 0.01;
    expect(findChange(points, range)).toBeUndefined();
    // A step over the last four buckets' worth of samples (the least a level after it may span here,
    // n / 50 buckets) and that lone one is still found.
    const at = (points[points.length - 4 * 36 - 1] as [number, number])[0];
    const stepped = series(range, (t) => (t >= at ? 100.025 : 100), 0.001);
    expect(Math.abs((findChange(stepped, range)?.at ?? 0) - at)).toBeLessThanOrEqual(2 * range.step);
  });

  it("reports none for a constant series, too few points, or no finite value", () => {
    expect(
      findChange(
        series(day, () => 7, 0),
        day,
      ),
    ).toBeUndefined();
    // All zeros: no noise and no residual to measure a change against (it reported one of score NaN,
    // which ranked the series last under `unusual`).
    const hours = { start: START, end: START + 6 * 3600, step: 60 };
    expect(
      findChange(
        series(hours, () => 0, 0),
        hours,
      ),
    ).toBeUndefined();
    expect(
      findChange(
        series(day, () => 0, 0),
        day,
      ),
    ).toBeUndefined();
    const short = { start: START, end: START + 10 * 60, step: 60 };
    expect(
      findChange(
        series(short, (t) => (t > START + 300 ? 10 : 0), 0),
        short,
      ),
    ).toBeUndefined();
    expect(findChange([], day)).toBeUndefined();
    const nans = series(day, () => Number.NaN, 0);
    expect(findChange(nans, day)).toBeUndefined();
  });

  it("skips NaN and ±Inf samples and gaps: the step is found as without them", () => {
    const at = START + 10 * 3600;
    const points = series(day, (t) => (t >= at ? 20 : 10), 0.5);
    const holed = points
      .map(([t, v], index): [number, number] =>
        index % 97 === 0 ? [t, Number.NaN] : index % 89 === 0 ? [t, Number.POSITIVE_INFINITY] : [t, v],
      )
      // Two hours without samples, away from the step.
      .filter(([t]) => t < START + 2 * 3600 || t >= START + 4 * 3600);
    const change = findChange(holed, day);
    expect(change?.at).toBe(at);
    expect(change?.before).toBeCloseTo(10, 0);
    expect(change?.after).toBeCloseTo(20, 0);
  });

  it("reads a curve's min and max points as well as the raw points", () => {
    const at = START + 12 * 3600;
    const raw = series(day, (t) => (t >= at ? 5 : 1), 0.1);
    // Each 16-step bucket's lowest and highest sample, as Curve.points writes them.
    const extremes: [number, number][] = [];
    for (let from = 0; from < raw.length; from += 16) {
      const bucket = raw.slice(from, from + 16);
      const low = bucket.reduce((a, b) => (b[1] < a[1] ? b : a));
      const high = bucket.reduce((a, b) => (b[1] > a[1] ? b : a));
      extremes.push(...(low[0] < high[0] ? [low, high] : [high, low]));
    }
    const change = findChange(extremes, day);
    expect(Math.abs((change?.at ?? 0) - at)).toBeLessThanOrEqual(16 * day.step);
    expect(change?.after).toBeGreaterThan(change?.before ?? Number.POSITIVE_INFINITY);
  });

  it("answers the same for the same points", () => {
    const points = series(day, (t) => (t >= START + 4000 ? 3 : 1), 0.2, 9);
    expect(findChange(points, day)).toEqual(findChange([...points], day));
  });

  describe("over the last two hours of a daily cycle (the on-call window)", () => {
    const twoHours: QueryRange = { start: START + DAY - 2 * 3600, end: START + DAY, step: 300 };
    // Eight workers' queues on one daily cycle, seen in its evening decline: ~30 jobs lost over 2 h.
    const queue = (t: number) => 130 + 70 * Math.sin((2 * Math.PI * (t - START - 11 * 3600)) / DAY);

    it("reports none for the smooth decline with noise, whatever the noise", () => {
      expect(queue(twoHours.start) - queue(twoHours.end)).toBeGreaterThan(25);
      for (let seed = 1; seed <= 8; seed++)
        expect(findChange(series(twoHours, queue, 3, seed), twoHours), `seed ${seed}`).toBeUndefined();
    });

    it("finds a step of 13σ (worker-3's; the threshold is MIN_SCORE × the estimated σ) on the decline within two steps of it", () => {
      const at = START + DAY - 3600;
      for (let seed = 1; seed <= 8; seed++) {
        const change = findChange(
          series(twoHours, (t) => queue(t) + (t >= at ? 40 : 0), 3, seed),
          twoHours,
        );
        expect(Math.abs((change?.at ?? 0) - at), `seed ${seed}`).toBeLessThanOrEqual(2 * twoHours.step);
        expect((change?.after ?? 0) - (change?.before ?? 0)).toBeGreaterThan(10);
        expect(change?.endedAt).toBeUndefined();
      }
    });
  });

  it("reports none for a steady linear growth over the whole window, at any slope", () => {
    for (const perHour of [0.5, 5, 500])
      expect(
        findChange(
          series(day, (t) => 1000 + ((t - START) / 3600) * perHour, 2),
          day,
        ),
        `${perHour} an hour`,
      ).toBeUndefined();
  });
});
