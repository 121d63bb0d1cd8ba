import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { intendedSetting, SETTING_NAMES } from "../../src/config/index.js";

// intendedSetting rules out most pairs by a cheap lower bound before computing the edit distance: it
// must name exactly the setting a full Levenshtein comparison names, for near misses and for strangers.

/** Levenshtein distance, the whole table: the oracle. */
function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min(
          (previous[j] as number) + 1,
          (current[j - 1] as number) + 1,
          (previous[j - 1] as number) + cost,
        ),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** What intendedSetting must answer: the nearest setting within its limit (first of equals), if any. */
function nearest(variable: string): string | undefined {
  if ((SETTING_NAMES as readonly string[]).includes(variable)) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of SETTING_NAMES) {
    const distance = levenshtein(variable.toUpperCase(), name);
    const limit = name.length <= 5 ? 1 : 2;
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789abcdeé€".split("");
const edit = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("insert", "delete", "replace"),
  letter: fc.constantFrom(...letters),
});

/** A setting's name with a few random edits: the misspellings intendedSetting is for. */
const nearMiss = fc
  .tuple(fc.constantFrom(...SETTING_NAMES), fc.array(edit, { minLength: 1, maxLength: 3 }))
  .map(([name, edits]) =>
    edits.reduce<string>((text, { at, kind, letter }) => {
      const i = at % (text.length + 1);
      if (kind === "insert") return text.slice(0, i) + letter + text.slice(i);
      if (kind === "delete") return text.slice(0, i) + text.slice(i + 1);
      return text.slice(0, i) + letter + text.slice(i + 1);
    }, name),
  );
const stranger = fc.string({ unit: fc.constantFrom(...letters), maxLength: 30 });

describe("intendedSetting", () => {
  it("names the setting a full edit-distance comparison names", () => {
    let named = 0;
    let unnamed = 0;
    fc.assert(
      fc.property(fc.oneof(nearMiss, stranger), (variable) => {
        const expected = nearest(variable);
        expect(intendedSetting(variable)).toBe(expected);
        if (expected === undefined) unnamed++;
        else named++;
      }),
      { numRuns: 3000 },
    );
    // Both kinds of answer were checked, not only strangers far from every setting.
    expect(named).toBeGreaterThan(100);
    expect(unnamed).toBeGreaterThan(100);
  });
});
