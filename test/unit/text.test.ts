import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { hasLoneSurrogate } from "../../src/util/json.js";
import { cutText } from "../../src/util/text.js";

const EMOJI = "😀"; // two code units: \uD83D\uDE00

describe("cutText", () => {
  it("leaves text of at most max code units as it is", () => {
    expect(cutText("", 0)).toBe("");
    expect(cutText("abc", 3)).toBe("abc");
    expect(cutText(EMOJI, 2)).toBe(EMOJI);
  });

  it("keeps the first max code units, then the marker: … unless told", () => {
    expect(cutText("abcdef", 3)).toBe("abc…");
    expect(cutText("abcdef", 3, "")).toBe("abc");
    expect(cutText("abcdef", 3, "… (6 characters)")).toBe("abc… (6 characters)");
    expect(cutText("abcdef", 0)).toBe("…");
  });

  it("never splits a surrogate pair: the cut falls before it", () => {
    expect(cutText(`ab${EMOJI}c`, 3)).toBe("ab…");
    expect(cutText(`ab${EMOJI}c`, 4)).toBe(`ab${EMOJI}…`);
    expect(cutText(`${EMOJI}${EMOJI}`, 1, "")).toBe("");
    expect(cutText(`${EMOJI}${EMOJI}`, 3, "")).toBe(EMOJI);
  });

  it("refuses a max that is not a whole number >= 0", () => {
    for (const max of [-1, 1.5, Number.NaN]) expect(() => cutText("abc", max)).toThrow(RangeError);
  });
});

/** Text mixing one- and two-unit characters, so a cut often falls in a pair. */
const wellFormed = fc.oneof(
  fc.string({ unit: fc.constantFrom("a", "é", EMOJI, "𝄞", "中"), maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
);
/** Any UTF-16: lone surrogates too. */
const anyUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  maxLength: 40,
});
const max = fc.integer({ min: 0, max: 45 });
const marker = fc.constantFrom("…", "", " [cut]");

/** The cut the request line used before (src/metrics/requestLine.ts `cut`): the reference. */
function requestLineCut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(limit - 1)) ? limit - 1 : limit;
  return `${text.slice(0, end)}…`;
}

describe("cutText's properties", () => {
  test.prop([wellFormed, max, marker])(
    "well-formed text stays well-formed, and keeps at most max code units of it, as many as the pairs allow",
    (text, limit, mark) => {
      const result = cutText(text, limit, mark);
      expect(hasLoneSurrogate(result)).toBe(false);
      if (text.length <= limit) {
        expect(result).toBe(text);
        return;
      }
      expect(result.endsWith(mark)).toBe(true);
      const kept = result.slice(0, result.length - mark.length);
      expect(text.startsWith(kept)).toBe(true);
      expect(kept.length).toBeLessThanOrEqual(limit);
      expect(kept.length).toBeGreaterThanOrEqual(limit - 1);
    },
  );

  test.prop([anyUnits, max])("without a marker, never longer than max code units", (text, limit) => {
    const result = cutText(text, limit, "");
    expect(result.length).toBeLessThanOrEqual(limit);
    expect(text.startsWith(result)).toBe(true);
    expect(result === text).toBe(text.length <= limit);
  });

  test.prop([anyUnits, max])("cuts any UTF-16 exactly as the request line's cut did", (text, limit) => {
    expect(cutText(text, limit)).toBe(requestLineCut(text, limit));
  });

  test.prop([wellFormed, max])(
    "differs from a plain slice only where that slice would split a pair",
    (text, limit) => {
      const plain = text.length <= limit ? text : `${text.slice(0, limit)}…`;
      const result = cutText(text, limit);
      expect(result === plain).toBe(!hasLoneSurrogate(plain));
    },
  );
});
