import { describe, expect, it } from "vitest";
import { rfc3339, rounded, SIGNIFICANT_DIGITS, sampleText, tableNumber } from "../../src/results/numbers.js";

describe("numbers as the server writes them", () => {
  it("keeps SIGNIFICANT_DIGITS of a value", () => {
    expect(SIGNIFICANT_DIGITS).toBe(5);
    expect(rounded(0.001977204000930445)).toBe(0.0019772);
    expect(rounded(43_320_053_794)).toBe(43_320_000_000);
    expect(rounded(-123.456789)).toBe(-123.46);
    expect(rounded(-0)).toBe(0);
    expect(Object.is(rounded(-0), 0)).toBe(true);
  });

  it("writes a value that may be a Unix time to the whole second, never hours away", () => {
    // process_start_time_seconds of a process started 2026-11-28T03:05:30.066Z
    expect(rounded(1_795_835_130.066)).toBe(1_795_835_130);
    expect(rfc3339(rounded(1_795_835_130.066))).toBe("2026-11-28T03:05:30Z");
    expect(rounded(1_000_000_000.4)).toBe(1_000_000_000);
    expect(rounded(9_999_999_999.2)).toBe(9_999_999_999);
    // Outside the times' span, significant digits again.
    expect(rounded(999_999_999.7)).toBe(1_000_000_000);
    expect(rounded(10_000_123_456)).toBe(10_000_000_000);
  });

  it("spells what is not a number as Prometheus does", () => {
    expect(tableNumber(Number.NaN)).toBe("NaN");
    expect(tableNumber(Number.POSITIVE_INFINITY)).toBe("+Inf");
    expect(sampleText(Number.NEGATIVE_INFINITY)).toBe("-Inf");
    expect(sampleText(2 / 3)).toBe("0.66667");
  });

  it("writes times in RFC 3339 UTC, with a fraction only when not whole", () => {
    expect(rfc3339(1_795_834_800)).toBe("2026-11-28T03:00:00Z");
    expect(rfc3339(1_795_834_830.066)).toBe("2026-11-28T03:00:30.066Z");
  });
});
