import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parseSample } from "../../src/results/numbers.js";
import { PointBuffer, readSeries } from "../../src/results/seriesBytes.js";

const encoder = new TextEncoder();

/** A sample value as Prometheus and its peers write it: any double, the specials, exponents both ways. */
const valueText = fc.oneof(
  fc
    .double()
    .map((x) => (Number.isNaN(x) ? "NaN" : x === Infinity ? "+Inf" : x === -Infinity ? "-Inf" : String(x))),
  fc.constantFrom(
    "NaN",
    "+Inf",
    "-Inf",
    "0",
    "-0",
    "1e-7",
    "1E+21",
    "0.000000000001",
    "12345678901234567890",
    "5e-324",
  ),
  fc.integer().map(String),
);
const time = fc.oneof(
  fc.integer({ min: 0, max: 4_000_000_000 }),
  fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }).map((ms) => ms / 1000),
);
const series = fc.record({
  metric: fc.dictionary(fc.string(), fc.string()),
  values: fc.array(fc.tuple(time, valueText), { maxLength: 50 }),
});

/** Equal, or for a value of more than 15 significant digits within the documented 1e-15 (relative). */
function sameValue(read: number | undefined, text: string): boolean {
  const exact = parseSample(text);
  if (Object.is(read, exact)) return true;
  const digits = text
    .replace(/^[-+]?0*\.?0*/, "")
    .replace(/[eE].*$/, "")
    .replace(".", "").length;
  return digits > 15 && read !== undefined && Math.abs(read - exact) <= Math.abs(exact) * 1e-15;
}

/** What readSeries gave is exactly the series, its values to 1e-15 past 15 digits. */
function expectRead(
  result: { metric: unknown; count: number },
  buffer: PointBuffer,
  series: { metric: unknown; values: ReadonlyArray<[number, string]> },
): void {
  expect(result.metric).toEqual(series.metric);
  expect(result.count).toBe(series.values.length);
  series.values.forEach(([t, v], index) => {
    expect(Object.is(buffer.times[index], t)).toBe(true);
    expect(sameValue(buffer.values[index], v), v).toBe(true);
  });
}

describe("reading a series from its bytes", () => {
  it("gives what JSON.parse and Number() give (to 1e-15 past 15 digits), for any series in Prometheus's compact shape", () => {
    let read = 0;
    fc.assert(
      fc.property(series, (element) => {
        const buffer = new PointBuffer();
        const result = readSeries(encoder.encode(JSON.stringify(element)), buffer);
        if (result === undefined) throw new Error(`not read: ${JSON.stringify(element)}`);
        read++;
        expectRead(result, buffer, element);
      }),
      { numRuns: 2_000 },
    );
    expect(read).toBe(2_000);
  });

  it("reads nothing, rather than something wrong, from any other bytes", () => {
    let other = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          series.map((element) => JSON.stringify(element, null, 1)),
          series.map((element) => JSON.stringify({ values: element.values, metric: element.metric })),
          fc.string().map((text) => `{"metric":{},"values":[${text}]}`),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        (text) => {
          const buffer = new PointBuffer();
          const result = readSeries(encoder.encode(text), buffer);
          if (result === undefined) {
            other++;
            return;
          }
          // Whatever is read is what the text says.
          expectRead(
            result,
            buffer,
            JSON.parse(text) as { metric: unknown; values: Array<[number, string]> },
          );
        },
      ),
      { numRuns: 2_000 },
    );
    expect(other).toBeGreaterThan(1_000);
  });
});
