import { describe, expect, it } from "vitest";
import { gridValues } from "../../src/results/compactCurve.js";

const RANGE = { start: 1_700_000_000, end: 1_700_000_600, step: 60 };

describe("gridValues: Prometheus's pairs on the range's grid", () => {
  it("writes a value per step from the start, null where no sample is, the end included", () => {
    const pairs: Array<[number, string]> = [
      [RANGE.start, "1"],
      [RANGE.start + 120, "0.123456789"],
      [RANGE.end, "NaN"],
    ];
    expect(gridValues(pairs, RANGE)).toStrictEqual([1, null, 0.12346, ...Array(7).fill(null), "NaN"]);
  });

  it("keeps the pairs (undefined) for a time off the grid, repeated, or outside the range", () => {
    expect(gridValues([[RANGE.start + 30, "1"]], RANGE)).toBeUndefined();
    expect(
      gridValues(
        [
          [RANGE.start, "1"],
          [RANGE.start, "2"],
        ],
        RANGE,
      ),
    ).toBeUndefined();
    expect(gridValues([[RANGE.start - 60, "1"]], RANGE)).toBeUndefined();
    expect(gridValues([[RANGE.end + 60, "1"]], RANGE)).toBeUndefined();
    // An odd upstream's time far past the end (here a billion steps): not a curve of a billion nulls.
    expect(gridValues([[RANGE.start + 60 * 1e9, "1"]], RANGE)).toBeUndefined();
  });
});
