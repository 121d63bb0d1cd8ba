import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parseSample, rounded } from "../../src/results/numbers.js";
import type { QueryAsked } from "../../src/results/queryAsked.js";
import { matrixAnswer, type RangeSeries, rendered } from "../support/cutResults.js";
import { queryPoints } from "../support/queryPoints.js";

const RANGE = { start: 1_795_800_000, end: 1_795_800_000 + 360 * 60, step: 60 };
const ASKED: QueryAsked = { query: "metric_total", range: RANGE, order: "unusual", form: "compact" };

/** The value a compact curve carries for a sample: rounded, NaN and the infinities as they are. */
function carried(text: string): number {
  return rounded(parseSample(text));
}

function same(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** The JSON text of a value, as a key: NaN and the infinities are distinct, 0 and -0 are not. */
function key(time: number, value: number): string {
  return `${time} ${Number.isNaN(value) ? "NaN" : value === 0 ? 0 : value}`;
}

describe("a compact curve", () => {
  it("of a whole answer stands for exactly its points: times from start + k × step, values rounded, gaps as null", async () => {
    let gaps = 0;
    const property = fc.asyncProperty(matrixAnswer(RANGE, 6), async (data) => {
      const { json } = await rendered(data, { tokens: 200_000, bytes: 10_000_000 }, ASKED);
      if (data.result.length === 0) return;
      expect(json.truncated).toBeUndefined();
      const answer = json as unknown as { range: { start: string; end: string; step_seconds: number } };
      expect(answer.range).toStrictEqual({
        start: new Date(RANGE.start * 1000).toISOString().replace(".000Z", "Z"),
        end: new Date(RANGE.end * 1000).toISOString().replace(".000Z", "Z"),
        step_seconds: RANGE.step,
      });
      const series = queryPoints(json);
      data.result.forEach((original, index) => {
        const { values } = original as RangeSeries;
        const read = series[index];
        expect(read?.metric).toStrictEqual((original as RangeSeries).metric);
        expect(read?.points.map(([t, v]) => key(t, v))).toStrictEqual(
          values.map(([t, text]) => key(t, carried(text))),
        );
        const written = (json.result[index] as { values: unknown[] }).values;
        if (written.includes(null)) gaps++;
        // Trailing nulls are dropped: the last entry is the last sample.
        expect(written.at(-1) ?? "none").not.toBeNull();
      });
    });
    await fc.assert(property, { numRuns: 150 });
    expect(gaps).toBeGreaterThan(0);
  }, 60_000);

  it("of a cut answer stands for each bucket's lowest and highest samples, at the bucket's time", async () => {
    const counts = { pairs: 0, gaps: 0, downsampled: 0 };
    const property = fc.asyncProperty(
      matrixAnswer(RANGE, 40),
      fc.integer({ min: 1_500, max: 6_000 }),
      async (data, tokens) => {
        const { json } = await rendered(data, { tokens, bytes: 1_000_000 }, ASKED);
        if (json.truncated === undefined) return;
        const { range } = json as unknown as { range: { start: string; step_seconds: number } };
        const step = range.step_seconds;
        expect(Date.parse(range.start) / 1000).toBe(RANGE.start);
        expect(step % RANGE.step).toBe(0);
        if (step > RANGE.step) {
          counts.downsampled++;
          expect(json.truncated.downsampled?.returned_step_seconds).toBe(step);
        }
        const originals = new Map(
          data.result.map((element) => [
            JSON.stringify((element as RangeSeries).metric),
            (element as RangeSeries).values,
          ]),
        );
        let points = 0;
        queryPoints(json).forEach(({ metric, points: read }, index) => {
          const values = originals.get(JSON.stringify(metric)) ?? [];
          const written = (json.result[index] as { values: unknown[] }).values;
          if (written.some((entry) => Array.isArray(entry))) counts.pairs++;
          if (written.includes(null)) counts.gaps++;
          points += read.length;
          // Every bucket with a (non-NaN) sample is written, with its lowest and highest samples.
          const buckets = new Map<number, number[]>();
          for (const [time, text] of values) {
            const value = parseSample(text);
            if (Number.isNaN(value)) continue;
            const at = RANGE.start + Math.floor((time - RANGE.start) / step) * step;
            buckets.set(at, [...(buckets.get(at) ?? []), value]);
          }
          const readAt = new Map<number, number[]>();
          for (const [time, value] of read) readAt.set(time, [...(readAt.get(time) ?? []), value]);
          expect([...readAt.keys()].sort((a, b) => a - b)).toStrictEqual(
            [...buckets.keys()].sort((a, b) => a - b),
          );
          for (const [at, samples] of buckets) {
            const shown = readAt.get(at) ?? [];
            const low = rounded(Math.min(...samples));
            const high = rounded(Math.max(...samples));
            expect(shown.some((value) => same(value, low))).toBe(true);
            expect(shown.some((value) => same(value, high))).toBe(true);
            expect(shown.length).toBe(Math.min(...samples) === Math.max(...samples) ? 1 : 2);
          }
        });
        expect(json.truncated.returned.points).toBe(points);
      },
    );
    await fc.assert(property, { numRuns: 120 });
    expect(counts.downsampled).toBeGreaterThan(0);
    expect(counts.pairs).toBeGreaterThan(0);
    expect(counts.gaps).toBeGreaterThan(0);
  }, 120_000);
});
